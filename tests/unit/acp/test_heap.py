"""The heap's free pages are given back on this Linux with glibc (tests/integration/test_memory_floods.py
shows the effect on a flood through a real server)."""

from __future__ import annotations

import resource

from webclient.acp.heap import give_back_free_memory


def rss_kib() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() // 1024


def test_memory_freed_between_blocks_still_alive_goes_back_to_the_system() -> None:
    # Blocks of 200 KiB, below the mapping threshold once raised, with every other one kept alive: the
    # freed ones are holes in the heap that glibc keeps resident until it is trimmed.
    big = [b"y" * (1024 * 1024) for _ in range(8)]  # freeing these raises the mapping threshold
    del big
    blocks = [b"x" * (200 * 1024) for _ in range(400)]
    del blocks[::2]
    before = rss_kib()
    assert give_back_free_memory()
    assert before - rss_kib() > 4 * 1024  # 8 MiB and more here; nothing at all without the trim
