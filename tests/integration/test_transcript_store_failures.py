"""A transcript store that cannot write (a full disk) is said on the page once, with the real cause, and
what failed is written again once there is space: a real server, its state folder on a small tmpfs that
the test fills and then frees (root is needed to mount it, as in CI; skipped elsewhere)."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.html import Page, status_is, turn_finished
from tests.support.live import Serve, http_get, open_tab
from tests.support.polling import eventually
from tests.support.tmpfs import small_tmpfs


@pytest.fixture
def small_state(tmp_path: Path) -> Iterator[Path]:
    with small_tmpfs(tmp_path / "state", "1m") as disk:
        yield disk


def fill(folder: Path) -> Path:
    """A file that takes every byte left on the disk."""
    filler = folder / "filler"
    with contextlib.suppress(OSError), filler.open("wb", buffering=0) as out:
        while True:
            out.write(b"x" * 4096)
    return filler


def kept_texts(state: Path) -> str:
    database = state / "transcripts" / "transcripts.sqlite3"
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
        return "\n".join(body for (body,) in db.execute("SELECT body FROM entries"))


async def test_a_full_disk_is_said_once_on_the_page_and_the_failed_batch_is_written_once_space_is_back(
    small_state: Path,
    serve: Serve,  # in this order: the server stops before the disk is unmounted
) -> None:
    server = serve(
        "echo_agent", env={"WEBCLIENT_STATE_DIR": str(small_state), "WEBCLIENT_KEEP_TRANSCRIPTS": "1"}
    )
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"), timeout=60)
    await tab.send(action="prompt", text="before the disk filled")
    await tab.wait_for(turn_finished("before the disk filled"), timeout=60)
    await eventually(lambda: "before the disk filled" in kept_texts(small_state), 30, "the first turn kept")

    filler = fill(small_state)
    for n in range(3):  # every batch fails while the disk is full; it is said once
        text = f"while the disk was full {n} " + "y" * 50_000
        await tab.send(action="prompt", text=text)
        await tab.wait_for(turn_finished(text), timeout=60)
    said = "transcripts are not being kept in"
    await tab.wait_for(lambda html: said in html, timeout=60)
    await tab.wait_for(lambda html: "database or disk is full" in html, timeout=60)  # the real cause
    assert Page.parse(tab.html).notice_count(said) == 1

    filler.unlink()  # space is back: what failed is written again, without a new prompt
    await eventually(
        lambda: all(f"while the disk was full {n}" in kept_texts(small_state) for n in range(3)),
        60,
        "the failed batches written once there was space",
    )


async def test_a_corrupt_store_is_said_on_the_page_with_its_cause_and_the_session_goes_on(
    serve: Serve, tmp_path: Path
) -> None:
    state = tmp_path / "corrupt-state"
    (state / "transcripts").mkdir(parents=True, mode=0o700)
    (state / "transcripts" / "transcripts.sqlite3").write_bytes(b"not a database at all " * 100)
    server = serve("echo_agent", env={"WEBCLIENT_STATE_DIR": str(state), "WEBCLIENT_KEEP_TRANSCRIPTS": "1"})

    def page() -> str:
        return http_get(server.base + "/s/s1", headers={"cookie": server.cookie()}).text

    await eventually(lambda: "transcripts are not being kept in" in page(), 60, "the store's failure said")
    assert Page.parse(page()).notices_with("file is not a database")
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"), timeout=60)
    await tab.send(action="prompt", text="still answered")
    await tab.wait_for(turn_finished("still answered"), timeout=60)
