"""The transcript keeper: nothing kept before a prompt, a streamed answer written in few batches."""

from __future__ import annotations

import asyncio
from pathlib import Path

from webclient.acp.models import MessageChunk, Notice, NoticeLevel, TextPart
from webclient.domain.items import MessageItem
from webclient.domain.kept.database import Bounds, Put
from webclient.domain.kept.keeper import TranscriptKeeper
from webclient.domain.kept.store import TranscriptStore
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


class RecordingStore(CountingStore):
    """The real store, keeping every put it is asked for."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.recorded: list[Put] = []

    def put(self, put: Put) -> None:
        self.recorded.append(put)
        super().put(put)


def test_a_streamed_answer_is_written_as_what_it_gained_since_the_last_write(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = RecordingStore(tmp_path / "transcripts")
        store.start()
        state = SessionState(agent_key="demo", agent_label="Demo")
        keeper = TranscriptKeeper(state, store, interval=3600)  # written when the test says
        try:
            keeper.changed(state.begin_turn([TextPart(text="hello")]))
            answer = ""
            for n in range(30):
                chunk = f"chunk {n} "
                answer += chunk
                keeper.changed(state.apply(MessageChunk(role="agent", content=TextPart(text=chunk))))
                if n % 10 == 9:
                    keeper.write()
            keeper.close()
            await store.flushed()
            agent = state.items[-1].id
            written = [(p.entries.get(agent), p.appended.get(agent)) for p in store.recorded]
            # The first write takes the answer whole, every later one only what it gained since.
            first, gained = written[0][0], [text for _, text in written[1:] if text]
            assert first is not None and first[1].text == "".join(f"chunk {n} " for n in range(10))
            assert all(whole is None for whole, _ in written[1:])
            assert gained == ["".join(f"chunk {n} " for n in range(k, k + 10)) for k in (10, 20)]
            kept = await store.load(keeper.key)
            assert kept is not None and [e.text for e in kept.entries] == ["hello", answer]
        finally:
            store.close()

    asyncio.run(scenario())


def test_a_message_whose_text_was_replaced_is_written_whole(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = RecordingStore(tmp_path / "transcripts")
        store.start()
        state = SessionState(agent_key="demo", agent_label="Demo")
        keeper = TranscriptKeeper(state, store, interval=3600)
        try:
            keeper.changed(state.begin_turn([TextPart(text="hello")]))
            keeper.changed(state.apply(MessageChunk(role="agent", content=TextPart(text="first draft"))))
            keeper.write()
            item = state.items[-1]
            assert isinstance(item, MessageItem)
            item.parts = [TextPart(text="second")]  # as an ACP v2 upsert replaces it
            keeper.changed({item.id})
            keeper.close()
            await store.flushed()
            last = store.recorded[-1]
            assert item.id not in last.appended and last.entries[item.id][1].text == "second"
            kept = await store.load(keeper.key)
            assert kept is not None and [e.text for e in kept.entries] == ["hello", "second"]
        finally:
            store.close()

    asyncio.run(scenario())
