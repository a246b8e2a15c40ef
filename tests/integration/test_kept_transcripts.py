"""Kept transcripts through the real server: written as the conversation goes, whole after `kill -9`."""

from __future__ import annotations

import json
import signal
import sqlite3
import stat
from pathlib import Path

from tests.support.live import open_tab, run_server, scripted_agent
from tests.support.polling import wait_until


def kept_texts(database: Path) -> list[str]:
    """The texts of every kept entry, in order (opened read-only, as a second process would)."""
    if not database.exists():
        return []
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT body FROM entries ORDER BY key, position").fetchall()
    return [json.loads(body)["text"] for (body,) in rows]


async def test_a_conversation_is_on_disk_after_the_server_is_killed(workspace: Path, tmp_path: Path) -> None:
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
        server.popen.send_signal(signal.SIGKILL)
        server.popen.wait(timeout=20)
    assert kept_texts(database) == wanted
    assert stat.S_IMODE((state / "transcripts").stat().st_mode) == 0o700
    assert stat.S_IMODE(database.stat().st_mode) == 0o600
