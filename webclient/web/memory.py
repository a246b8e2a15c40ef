"""How the server's process gives memory back to the system.

An agent can send many messages of a few MiB each (a 1.5 MiB chunk for a session it made up, a 1 MiB
terminal's output). glibc serves an allocation of 128 KiB or more with its own mapping and unmaps it when
freed, but it raises that threshold to the size of each such block freed, up to 32 MiB: after the first
few, every later multi-MiB buffer comes from the heap, where the holes left between blocks still alive
keep the freed memory resident. A flood of such messages then grew the server's resident set by tens
of MiB over what it actually kept. A fixed threshold keeps every big buffer in a mapping of its own,
returned to the system when freed, at the cost of a system call per big allocation.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

M_MMAP_THRESHOLD = -3  # mallopt's parameter number in glibc's malloc.h
MMAP_THRESHOLD = 128 * 1024  # glibc's own starting value, kept fixed


def keep_big_buffers_unmapped() -> bool:
    """Fix glibc's mmap threshold for this process; False where there is no glibc (nothing to do)."""
    if not sys.platform.startswith("linux"):
        return False
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # musl and other C libraries have no mallopt
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))
