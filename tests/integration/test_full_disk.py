"""A write on a full disk leaves the original file whole, and the agent is told it was not written.

The disk is a real one: a 64 KiB tmpfs mounted inside the workspace (this needs root, as in CI; where
mounting is not allowed the test is skipped outside CI, and the unit test's injected ENOSPC still runs).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.html import Page, status_is, turn_finished
from tests.support.live import Serve, open_tab

PRECIOUS = "the user's notes, which must survive\n" * 100


@pytest.fixture
def small_disk(workspace: Path) -> Iterator[Path]:
    disk = workspace / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], capture_output=True, check=False
    )
    if mounted.returncode != 0:
        if os.environ.get("CI"):
            pytest.fail(f"CI runs as root and must test a real full disk: {mounted.stderr.decode().strip()}")
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], check=True)


async def test_a_write_that_fills_the_disk_leaves_the_original_intact_and_the_agent_gets_an_error(
    serve: Serve, small_disk: Path
) -> None:
    target = small_disk / "notes.txt"
    target.write_text(PRECIOUS)
    server = serve("big_items")
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"), timeout=60)

    prompt = f"write {target}"  # 0.5 MB onto a 64 KiB disk
    await tab.send(action="prompt", text=prompt)
    await tab.wait_for(turn_finished(prompt), timeout=60)

    answer = Page.parse(tab.html).agent_text
    assert "ANSWER {" in answer and "No space left on device" in answer, answer
    assert "the file was left as it was" in answer
    assert target.read_text() == PRECIOUS
    assert [p.name for p in small_disk.iterdir()] == ["notes.txt"]  # no temporary file left behind
