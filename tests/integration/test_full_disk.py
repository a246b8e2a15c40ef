"""A write on a full disk leaves the original file whole, and the agent is told it was not written.

The disk is a real one: a 64 KiB tmpfs mounted inside the workspace (this needs root, as in CI; where
mounting is not allowed the test is skipped outside CI, and the unit test's injected ENOSPC still runs).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.html import Page, status_is, turn_finished
from tests.support.live import Serve, open_tab
from tests.support.tmpfs import small_tmpfs

PRECIOUS = "the user's notes, which must survive\n" * 100


@pytest.fixture
def small_disk(workspace: Path) -> Iterator[Path]:
    with small_tmpfs(workspace / "disk", "64k") as disk:
        yield disk


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
