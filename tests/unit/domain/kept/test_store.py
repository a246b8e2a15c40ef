"""The kept-transcript store: writes batched on its thread, reads after them, a folder it cannot open said;
and entries as kept, read back as the page shows them."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from tests.support.kept import DAY, put
from webclient.acp.models import Notice, NoticeLevel, TextPart
from webclient.domain.items import Item, MessageItem, NoticeItem, ToolCallItem
from webclient.domain.kept.database import Bounds
from webclient.domain.kept.entries import bounded, copy_text, rebuild, to_entry
from webclient.domain.kept.store import FOLDER_NAME, TranscriptStore
from webclient.settings import Settings


def test_the_store_batches_writes_on_its_thread_and_answers_reads_after_them(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = TranscriptStore(tmp_path / "transcripts", Bounds(10**9, 30 * DAY))
        store.start()
        try:
            for n in range(50):  # a streamed answer: many puts of the same entry
                store.put(put("a", time.time(), "hello " * n))
            await store.flushed()
            kept = await store.load("a")
            assert kept is not None and kept.entries[0].text == "hello " * 49
            assert [s.key for s in await store.summaries()] == ["a"]
            assert await store.delete("a") is True
            assert await store.load("a") is None
        finally:
            store.close()

    asyncio.run(scenario())


def test_a_store_that_cannot_open_its_folder_says_so_and_keeps_nothing(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")

    async def scenario() -> None:
        store = TranscriptStore(blocker / "transcripts", Bounds(10**9, DAY))
        store.start()
        try:
            store.put(put("a", 1.0, "x"))
            assert await store.summaries() == []
            assert store.problem is not None and "cannot open" in store.problem
        finally:
            store.close()

    asyncio.run(scenario())


def test_entries_round_trip_into_a_transcript_the_page_can_show() -> None:
    user = MessageItem(role="user", parts=[TextPart(text="fix the <b>bug</b>")])
    agent = MessageItem(role="agent", parts=[TextPart(text="Done.")])
    tool = ToolCallItem(tool_call_id="t1", title="Edit main.py", kind="edit", status="completed")
    items: list[Item] = [user, agent, tool]
    entries = [e for e in map(to_entry, items) if e is not None]
    transcript = rebuild(entries)
    kinds = [type(item).__name__ for item in transcript.items]
    assert kinds == ["MessageItem", "MessageItem", "ToolCallItem"]
    assert isinstance(transcript.items[0], MessageItem) and transcript.items[0].text == "fix the <b>bug</b>"
    text = copy_text("a title", entries)
    assert (
        "User: fix the <b>bug</b>" in text and "Agent: Done." in text and "[tool call: Edit main.py" in text
    )


def test_a_long_text_is_kept_cut_and_says_how_much_was_left() -> None:
    assert bounded("abcdef", 4) == "abcd\n\n[2 more characters were not kept]"
    notice = NoticeItem(notice=Notice(level=NoticeLevel.WARNING, text="w"))
    entry = to_entry(notice)
    assert entry is not None and entry.level is NoticeLevel.WARNING


def test_the_settings_say_where_transcripts_are_kept_and_how_much(tmp_path: Path) -> None:
    kept = TranscriptStore.for_settings(
        Settings(
            cwd=tmp_path,
            state_dir=tmp_path / "state",
            keep_transcripts=True,
            kept_transcripts_max_mb=3,
            kept_transcripts_max_days=2,
        )
    )
    assert kept.folder == tmp_path / "state" / FOLDER_NAME
    assert kept.bounds == Bounds(3 * 1024 * 1024, 2 * 86400)
    off = TranscriptStore.for_settings(Settings(cwd=tmp_path, keep_transcripts=False))
    assert off.folder is None
