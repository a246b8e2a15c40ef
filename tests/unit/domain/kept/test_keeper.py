"""The transcript keeper: nothing kept before a prompt, a streamed answer written in few batches."""

from __future__ import annotations

import asyncio
from pathlib import Path

from webclient.acp.models import MessageChunk, Notice, NoticeLevel, TextPart
from webclient.domain.kept.keeper import TranscriptKeeper
from webclient.domain.kept.store import Bounds, Put, TranscriptStore
from webclient.domain.state import SessionState


class CountingStore(TranscriptStore):
    """The real store, counting the writes it is asked for."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder, Bounds(10**9, 86400.0))
        self.puts = 0

    def put(self, put: Put) -> None:
        self.puts += 1
        super().put(put)


def test_a_session_without_a_prompt_is_never_kept_and_a_stream_is_written_in_batches(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = CountingStore(tmp_path / "transcripts")
        store.start()
        state = SessionState(agent_key="demo", agent_label="Demo")
        keeper = TranscriptKeeper(state, store, interval=0.05)
        try:
            keeper.changed(state.add_notice(Notice(level=NoticeLevel.INFO, text="starting")))
            keeper.write()  # what its timer does: nothing to keep yet
            await store.flushed()
            assert await store.summaries() == []
            keeper.changed(state.begin_turn([TextPart(text="hello")]))
            for n in range(500):  # chunks within one interval: one write
                keeper.changed(state.apply(MessageChunk(role="agent", content=TextPart(text=f"{n} "))))
            keeper.close()
            await store.flushed()
            kept = await store.load(keeper.key)
            assert kept is not None
            assert [e.text for e in kept.entries] == [
                "starting",
                "hello",
                "".join(f"{n} " for n in range(500)),
            ]
            assert store.puts <= 2
        finally:
            store.close()

    asyncio.run(scenario())
