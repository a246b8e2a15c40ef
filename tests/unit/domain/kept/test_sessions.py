"""The sessions that show stored copies: a copy opens once, read only, beside the live sessions, and
deleting it closes every session that showed it."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from webclient.acp.wire_log import WireLog
from webclient.domain.changes import PendingChanges
from webclient.domain.items import MessageItem
from webclient.domain.kept.database import Put
from webclient.domain.kept.entries import KeptEntry, KeptSummary
from webclient.domain.registry import SessionRegistry
from webclient.errors import Refused
from webclient.settings import Settings

KEY = "a" * 32


def test_a_copy_opens_once_read_only_and_deleting_it_closes_the_sessions_that_show_it(tmp_path: Path) -> None:
    async def scenario() -> None:
        settings = Settings(cwd=tmp_path, state_dir=tmp_path / "state", keep_transcripts=True)
        registry = SessionRegistry(settings, PendingChanges.factory, WireLog())
        registry.transcripts.start()
        try:
            summary = KeptSummary(
                key=KEY, agent_key=registry.default_agent, agent_label="Demo", session_id=None,
                title="the lighthouse", created=time.time(), updated=time.time(),
            )  # fmt: skip
            text = KeptEntry(kind="message", role="user", text="remember the lighthouse")
            registry.transcripts.put(Put(summary, {"m1": (0, text)}))
            await registry.transcripts.flushed()
            await registry.kept.refresh()
            [live] = registry.live_sessions()
            assert [link.key for link in live.state.sidebar.kept] == [KEY]

            shown = await registry.kept.open(KEY)
            assert shown.state.kept is not None and shown.state.display_title == "the lighthouse"
            assert [item.text for item in shown.state.items if isinstance(item, MessageItem)] == [
                "remember the lighthouse"
            ]
            assert not shown.state.can_prompt
            assert await registry.kept.open(KEY) is shown  # the session that shows it already
            assert registry.kept.views(KEY) == [shown] and registry.live_sessions() == [live]
            assert shown.state.sidebar.kept[0].current and not live.state.sidebar.kept[0].current

            await registry.kept.delete(KEY)
            assert shown.local_id not in registry.sessions and registry.kept.views(KEY) == []
            assert live.state.sidebar.kept == ()
            with pytest.raises(Refused, match="gone"):
                await registry.kept.open(KEY)
        finally:
            await registry.shutdown()

    asyncio.run(scenario())
