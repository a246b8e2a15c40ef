"""The live frames of streamed answers (agent messages and thoughts that are all text): the renderer of
their deltas (`streamed.py` says what a frame of one answer is), and the renders of long open tails it
runs off the loop when they are due."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import replace

from webclient.aio import cancel_and_wait
from webclient.domain.items import Item
from webclient.domain.state import SessionState
from webclient.views import render
from webclient.views.markdown_stream import answer_text, finished_end
from webclient.views.streamed import Shown, Stream, StreamFrame, render_tail
from webclient.views.tab_view import TabView


class TextDeltas:
    """Each streamed answer's shared reading, and the renders of long open tails that are due."""

    def __init__(self, mark: Callable[[Iterable[str]], None]) -> None:
        self._mark = mark
        self._streams: dict[str, Stream] = {}
        self._format_timers: dict[str, asyncio.TimerHandle] = {}
        self._formatting: dict[str, asyncio.Task[None]] = {}  # long tails being rendered off the loop

    def work(self, entry: Item, now: float) -> int | None:
        stream = self._streams.get(entry.id)
        text = answer_text(entry)
        if stream is not None and text is not None:
            return stream.work(text, now)
        return None

    def markdown_work(self, entry: Item, now: float) -> int:
        """See `Stream.markdown_work`."""
        stream, text = self._streams.get(entry.id), answer_text(entry)
        return stream.markdown_work(text, now) if stream is not None and text is not None else 0

    def frame(self, state: SessionState, dirty: set[str], now: float) -> TextFrame:
        return TextFrame(self, now)

    async def stop(self) -> None:
        for timer in self._format_timers.values():
            timer.cancel()
        self._format_timers.clear()
        for task in list(self._formatting.values()):
            await cancel_and_wait(task)

    def stream(self, entry_id: str) -> Stream:
        """The shared reading of this answer, made when it is first streamed."""
        stream = self._streams.get(entry_id)
        if stream is None:
            stream = self._streams[entry_id] = Stream()
            stream.off_loop = True  # its long tail is rendered on a worker thread (`_format_due`)
        return stream

    def schedule_formats(self, entries: list[Item], tabs: list[TabView]) -> None:
        """A tab left showing raw text of an open block gets it rendered as Markdown when that is due."""
        loop = asyncio.get_running_loop()
        for entry in entries:
            stream = self._streams.get(entry.id)
            if stream is None or entry.id in self._format_timers or entry.id in self._formatting:
                continue
            if any((c := tab.streamed.get(entry.id)) is not None and c.raw for tab in tabs):
                self._format_timers[entry.id] = loop.call_at(stream.format_due, self._format_due, entry.id)

    def _format_due(self, entry_id: str) -> None:
        """A long tail's render is due: made on a worker thread, so the chunks behind it are not held for
        it (the next frame sends it); a tail grown short again is rendered by the next frame."""
        del self._format_timers[entry_id]
        stream = self._streams.get(entry_id)
        job = stream.tail_job() if stream is not None else None
        if stream is None or job is None:
            self._mark([entry_id])
            return
        self._formatting[entry_id] = asyncio.create_task(self._format(entry_id, stream, job))

    async def _format(self, entry_id: str, stream: Stream, job: tuple[int, str]) -> None:
        try:
            done = await asyncio.to_thread(render_tail, entry_id, job)
            stream.rendered(job, done, asyncio.get_running_loop().time())
            # A frame either way: it sends the render, or (the answer moved on meanwhile) schedules the
            # next one for a tab still showing raw text.
            self._mark([entry_id])
        finally:
            self._formatting.pop(entry_id, None)


class TextFrame:
    """One frame of the streamed answers: every tab that has an answer up to the same point shares one
    rendering of what changed since."""

    def __init__(self, owner: TextDeltas, now: float) -> None:
        self._owner = owner
        self._now = now
        self._changes: dict[str, StreamFrame] = {}
        self._ends: dict[str, int] = {}
        self._raw: dict[tuple[str, int], str] = {}  # what is sent ahead, by answer and where the tab was

    def streamed_text(self, entry: Item) -> str | None:
        """`markdown_stream.streamed_text`, reading each piece of a growing answer once."""
        text = answer_text(entry)
        if text is None:
            return None
        return None if self._owner.stream(entry.id).references.found(text) else text

    def delta(self, entry: Item, tab: TabView) -> str | None:
        text = self.streamed_text(entry)
        shown = tab.streamed.get(entry.id)
        if text is None or shown is None:
            return None
        change = self._change(entry.id, text)
        if change.replaced:
            return None
        frame, tab.streamed[entry.id] = change.for_tab(shown)
        return frame

    def whole(self, entry: Item, tab: TabView) -> None:
        text = self.streamed_text(entry)
        if text is None:
            tab.streamed.pop(entry.id, None)  # shown whole from now on (say, an image joined it)
        else:
            tab.streamed[entry.id] = Shown(self._finished_end(entry.id, text), len(text))

    def ahead(self, entry: Item, tab: TabView) -> str | None:
        """What arrived of an answer since the tab's last frame, appended to its tail as raw text: the
        frame renders a long block that finished (a list of 2,000 items) on a worker thread, and the last
        chunks, the ones that finished it, go out now instead of with that render, which replaces them."""
        text = self.streamed_text(entry)
        shown = tab.streamed.get(entry.id)
        if text is None or shown is None or len(text) <= shown.upto:
            return None
        stream = self._owner.stream(entry.id)
        if not stream.continues(text):
            return None  # replaced, not grown: the frame sends it whole
        key = (entry.id, shown.upto)
        frame = self._raw.get(key)
        if frame is None:
            raw = render.raw_text(text[shown.upto :], code=stream.in_code)
            frame = self._raw[key] = render.message_raw(entry.id, raw)
        tab.streamed[entry.id] = replace(shown, upto=len(text), raw=True)
        return frame

    def sent(self, entries: list[Item], tabs: list[TabView]) -> None:
        self._owner.schedule_formats(entries, tabs)

    def _change(self, entry_id: str, text: str) -> StreamFrame:
        """This frame's change of a streamed answer, shared by every tab that has it."""
        change = self._changes.get(entry_id)
        if change is None:
            stream = self._owner.stream(entry_id)
            change = self._changes[entry_id] = StreamFrame(entry_id, text, stream, self._now)
        return change

    def _finished_end(self, entry_id: str, text: str) -> int:
        """Where the full rendering of this answer (in this frame) split it."""
        end = self._ends.get(entry_id)
        if end is None:
            end = self._ends[entry_id] = finished_end(text)
        return end
