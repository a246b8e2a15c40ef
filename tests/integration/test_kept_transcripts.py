"""Kept transcripts through the real server: written as the conversation goes, whole after `kill -9`, and
offered again by the restarted server as a stored copy, read only, to read, copy from and delete."""

from __future__ import annotations

import html
import json
import re
import signal
import sqlite3
import stat
from pathlib import Path

import pytest

from tests.support.live import LiveServer, Tab, http_get, open_tab, run_server, scripted_agent
from tests.support.polling import wait_until

KEPT_COPY = re.compile(r'data-testid="kept-copy" data-key="([0-9a-f]{32})"')
NAVIGATE = re.compile(r'id="navigate" hidden data-href="(/s/s\d+)"')


def kept_texts(database: Path) -> list[str]:
    """The texts of every kept entry, in order (opened read-only, as a second process would)."""
    if not database.exists():
        return []
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT body FROM entries ORDER BY key, position").fetchall()
    return [json.loads(body)["text"] for (body,) in rows]


def page_of(server: LiveServer, path: str) -> str:
    return http_get(f"{server.base}{path}", headers={"cookie": server.cookie()}).text


async def navigated(tab: Tab, since: int) -> str:
    """The page the server sends this tab to next (frames after the first `since` characters)."""
    seen = await tab.wait_for(lambda text: NAVIGATE.search(text[since:]) is not None, 30)
    found = NAVIGATE.search(seen[since:])
    assert found is not None
    return found.group(1)


@pytest.mark.system
async def test_a_conversation_is_on_disk_after_the_server_is_killed_and_the_next_server_offers_it(
    workspace: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    env = {"WEBCLIENT_STATE_DIR": str(state), "WEBCLIENT_KEEP_TRANSCRIPTS": "1"}
    database = state / "transcripts" / "transcripts.sqlite3"
    with run_server(scripted_agent("echo_agent"), cwd=workspace, env=env) as server:
        tab = await open_tab(server)
        await tab.wait_for_text('data-state="ready"')
        assert kept_texts(database) == []  # a session nobody used is never kept
        await tab.send(action="prompt", text="remember the lighthouse")
        await tab.wait_for_text("You said: remember the lighthouse")
        wanted = ["remember the lighthouse", "You said: remember the lighthouse"]
        wait_until(
            lambda: kept_texts(database) == wanted,
            20,
            "the conversation on disk",
            lambda: str(kept_texts(database)),
        )
        assert 'data-testid="kept-copy"' not in tab.html  # open here: not offered as a copy
        server.popen.send_signal(signal.SIGKILL)
        server.popen.wait(timeout=20)
    assert kept_texts(database) == wanted
    assert stat.S_IMODE((state / "transcripts").stat().st_mode) == 0o700
    assert stat.S_IMODE(database.stat().st_mode) == 0o600

    with run_server(scripted_agent("echo_agent"), cwd=workspace, env=env) as again:
        await stored_copy_is_offered_read_and_deleted(again, database, wanted)


async def stored_copy_is_offered_read_and_deleted(
    server: LiveServer, database: Path, wanted: list[str]
) -> None:
    tab = await open_tab(server)
    # Ready first: the new session at the restarted agent may well have the killed one's session id.
    await tab.wait_for_text('data-state="ready"')
    listed = await tab.wait_for(lambda text: KEPT_COPY.search(text) is not None, 30)
    found = KEPT_COPY.search(listed)
    assert found is not None
    key = found.group(1)
    assert "remember the lighthouse" in listed[found.start() :]  # its title, in the sidebar

    mark = len(tab.html)
    await tab.send(action="open_copy", key=key)
    path = await navigated(tab, mark)
    shown = page_of(server, path)
    assert 'data-testid="kept-banner"' in shown and "Stored copy" in shown
    assert "You said: remember the lighthouse" in shown  # the transcript, as a live one renders it
    assert 'data-testid="composer"' not in shown and 'data-testid="copy-into-new"' in shown
    assert 'data-state="read-only"' in shown

    copy = await open_tab(server, local_id=path.rsplit("/", 1)[1])
    await copy.wait_for_text('data-testid="transcript"')
    await copy.send(action="prompt", text="are you there?")  # what a page without a composer cannot send
    await copy.wait_for_text("cannot take a prompt now (read-only)")
    assert "are you there?" not in page_of(server, path)

    mark = len(copy.html)
    await copy.send(action="copy_into_new", key=key)
    await copy.wait_for(lambda text: NAVIGATE.search(text[mark:]) is not None, 30)
    draft = html.unescape(copy.html[mark:])
    assert "User: remember the lighthouse" in draft and "Agent: You said: remember the lighthouse" in draft
    assert 'data-testid="composer"' in page_of(server, await navigated(copy, mark))  # a live session
    assert kept_texts(database) == wanted  # nothing was sent: only the copy is kept

    await copy.send(action="delete_copy", key=key)
    wait_until(lambda: kept_texts(database) == [], 20, "the copy deleted from disk")
    # The sidebar lists the copies the store reports, which it learns after the file is written.
    wait_until(
        lambda: 'data-testid="kept-copy"' not in page_of(server, "/s/s1"),
        20,
        "the copy gone from the sidebar",
    )
    await tab.close()
