"""A conversation outlives a `kill -9` of the server: the next server lists webclient's stored copy, opens
it read only and marked as such, copies its text into a new session's composer, and deletes it.

The server runs as a process of its own here (it is killed), with the demo agent; the restarted agent
keeps its sessions elsewhere, so it cannot load the killed server's session: the stored copy is the only
way back to it.
"""

from __future__ import annotations

import re
import signal
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.support.browser import AGENT_STARTUP_TIMEOUT, FAST_DEMO, open_signed_in
from tests.support.console import watch_problems
from tests.support.layouts import Layout, assert_accessible, shoot
from tests.support.live import LiveServer, run_server
from tests.support.pages import agent_messages, prompt, reload, user_messages
from tests.support.polling import wait_until
from webclient.domain.kept.database import Bounds, Put, TranscriptDatabase
from webclient.domain.kept.entries import KeptEntry, KeptSummary
from webclient.domain.kept.store import FOLDER_NAME


def kept_rows(database: Path) -> int:
    """How many transcript entries are on disk (read as a second process would)."""
    if not database.exists():
        return 0
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        (count,) = db.execute("SELECT COUNT(*) FROM entries").fetchone()
    return int(count)


@contextmanager
def keeping_server(workspace: Path, state: Path, demo_state: Path) -> Iterator[LiveServer]:
    env = {
        "WEBCLIENT_STATE_DIR": str(state),
        "WEBCLIENT_KEEP_TRANSCRIPTS": "1",
        "WEBCLIENT_DEMO_STATE_DIR": str(demo_state),
        **FAST_DEMO,
    }
    with run_server(cwd=workspace, env=env, startup_timeout=AGENT_STARTUP_TIMEOUT) as server:
        yield server


def open_sessions(page: Page, layout: Layout) -> None:
    if layout.phone:
        page.get_by_test_id("sessions-toggle").click()
        expect(page.get_by_test_id("sidebar")).to_be_in_viewport()


def test_after_a_kill_the_stored_copy_is_listed_read_only_copied_into_a_new_session_and_deleted(
    sized_page: Page, layout: Layout, e2e_workspace: Path, tmp_path: Path
) -> None:
    page = sized_page
    problems = watch_problems(page)  # what the next server's pages complain of: nothing
    state = tmp_path / "state"
    database = state / "transcripts" / "transcripts.sqlite3"
    with keeping_server(e2e_workspace, state, tmp_path / "demo-before") as before:
        open_signed_in(page, before)
        expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
        prompt(page, "list files")
        expect(agent_messages(page).last).to_contain_text("README.md")
        wait_until(lambda: kept_rows(database) >= 2, 30, "the conversation on disk")
        before.popen.send_signal(signal.SIGKILL)
        before.popen.wait(timeout=30)

    with keeping_server(e2e_workspace, state, tmp_path / "demo-after") as after:
        page.context.clear_cookies()  # the killed server's: the next one signs in with a token of its own
        open_signed_in(page, after)
        expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
        problems.clear()  # the killed server's page could not reconnect, as it should not
        open_sessions(page, layout)
        copy = page.get_by_test_id("kept-copy")
        expect(copy).to_have_count(1)
        expect(copy.get_by_test_id("kept-title")).to_have_text("list files")
        expect(copy.get_by_test_id("kept-when")).to_contain_text("Demo agent · ")
        expect(page.get_by_test_id("session-link")).to_have_count(1)  # the new session, not the copy
        assert_accessible(page, "the sidebar with a stored copy")
        shoot(page, "stored-copy-listed", layout)

        copy.get_by_test_id("open-copy").click()
        expect(page.get_by_test_id("kept-banner")).to_contain_text("Stored copy")
        copy_path = re.sub(r"^https?://[^/]+", "", page.url)
        expect(page.get_by_test_id("kept-banner")).to_contain_text("The agent is not attached")
        expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "read-only")
        expect(page.get_by_test_id("composer")).to_have_count(0)
        expect(user_messages(page)).to_have_count(1)
        expect(user_messages(page)).to_contain_text("list files")
        expect(agent_messages(page).last).to_contain_text("README.md")  # rendered as a live answer is
        assert_accessible(page, "a stored copy")
        shoot(page, "stored-copy", layout)

        page.get_by_test_id("copy-into-new").click()
        expect(page).not_to_have_url(re.compile(re.escape(copy_path) + "$"))
        composer = page.get_by_test_id("composer")
        expect(composer).to_have_value(re.compile(r"User: list files\n\n.*Agent: .*README\.md", re.S))
        expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
        expect(user_messages(page)).to_have_count(0)  # nothing is sent until the user sends it
        shoot(page, "stored-copy-into-new-session", layout)

        page.goto(after.base + copy_path)
        page.get_by_test_id("kept-delete").locator("summary").click()
        expect(page.get_by_test_id("confirm-kept-delete")).to_be_visible()
        assert_accessible(page, "a stored copy, asking to confirm its deletion")
        shoot(page, "stored-copy-delete", layout)
        page.get_by_test_id("confirm-kept-delete").click()
        expect(page).not_to_have_url(re.compile(re.escape(copy_path) + "$"))
        expect(page.get_by_test_id("composer")).to_be_visible()
        wait_until(lambda: kept_rows(database) == 0, 30, "the copy deleted from disk")
        reload(page)
        expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
        expect(page.get_by_test_id("kept-copy")).to_have_count(0)
    assert problems == []


def keep_copies(state: Path, count: int) -> None:
    """`count` copies of sessions an earlier server kept, written by the store the server uses."""
    database = TranscriptDatabase(state / FOLDER_NAME, Bounds(10**9, 10**9))
    try:
        database.write(
            Put(
                KeptSummary(
                    key=f"{n:032x}", agent_key="demo", agent_label="Demo agent", session_id=f"gone-{n}",
                    title=f"conversation {n}", created=1e9 + n, updated=time.time() - n,
                ),
                {"m": (0, KeptEntry(kind="message", role="user", text=f"prompt {n}"))},
            )
            for n in range(count)
        )  # fmt: skip
    finally:
        database.close()


def test_many_copies_show_the_five_most_recent_and_fold_the_older_ones_away(
    sized_page: Page, layout: Layout, e2e_workspace: Path, tmp_path: Path
) -> None:
    page = sized_page
    keep_copies(tmp_path / "state", 8)
    with keeping_server(e2e_workspace, tmp_path / "state", tmp_path / "demo") as server:
        open_signed_in(page, server)
        expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
        open_sessions(page, layout)
        expect(page.get_by_test_id("kept-copy")).to_have_count(8)
        expect(page.get_by_test_id("kept-copy").first).to_contain_text("conversation 0")
        older = page.get_by_test_id("kept-older")
        expect(older.get_by_test_id("kept-copy").first).to_be_hidden()  # folded
        older.locator("summary").click()
        expect(older.get_by_test_id("kept-copy")).to_have_text(
            [re.compile(f"conversation {n}") for n in (5, 6, 7)]
        )
        assert_accessible(page, "the sidebar with older stored copies unfolded")
        shoot(page, "stored-copies-many", layout)
        older.get_by_test_id("open-copy").last.click()
        expect(page.get_by_test_id("kept-banner")).to_be_visible()
        expect(user_messages(page)).to_contain_text("prompt 7")
