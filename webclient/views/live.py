"""Fan-out of one session's changes to every connected tab, coalesced into a few frames per second.

State changes only mark keys dirty; a single flusher task owned by the hub renders what is dirty at most
once per `interval` and sends one frame to each tab. So a fast agent streaming hundreds of chunks a
second costs the browser a handful of swaps, and every tab sees the same markup.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable

from webclient.domain.prompt import ComposerAttachments
from webclient.domain.state import Aspect, Item, SessionState
from webclient.views import render
from webclient.views.inspector import Cursor, InspectorFeed
from webclient.views.regions import is_region

# A tab that falls this many frames behind is dropped; it reconnects and gets a fresh snapshot.
MAX_QUEUED_FRAMES = 256


class Subscriber:
    """One connected tab: the frames waiting for it and the transcript entries it already has."""

    def __init__(self) -> None:
        self.frames: asyncio.Queue[str | None] = asyncio.Queue(maxsize=MAX_QUEUED_FRAMES)
        self.known_items: set[str] = set()
        self.inspector = Cursor()  # what this tab's protocol inspector already shows
        # Only a tab whose inspector is open is sent its entries: a closed panel costs nothing.
        self.watching_inspector = False
        self.dropped = False
        # This tab's composer attachments: the page only holds their opaque ids.
        self.composer = ComposerAttachments()

    def push(self, frame: str) -> None:
        if self.dropped:
            return
        try:
            self.frames.put_nowait(frame)
        except asyncio.QueueFull:
            self.dropped = True
            # Make room for the end-of-stream marker so the sender stops and the tab reconnects.
            with contextlib.suppress(asyncio.QueueEmpty):
                self.frames.get_nowait()
            self.frames.put_nowait(None)


class LiveHub:
    """Owns the dirty set and the flusher task for one session."""

    def __init__(self, state: SessionState, interval: float, inspector: InspectorFeed | None = None) -> None:
        self.state = state
        self._interval = interval
        self._subscribers: set[Subscriber] = set()
        self._dirty: set[str] = set()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.frames_sent = 0
        self.inspector = inspector  # None: no protocol inspector

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="live-hub-flusher")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for sub in list(self._subscribers):
            with contextlib.suppress(asyncio.QueueFull):
                sub.frames.put_nowait(None)
        self._subscribers.clear()

    def mark(self, keys: Iterable[str]) -> None:
        """Note that these parts of the state changed; they go out with the next frame."""
        self._dirty.update(keys)
        if self._dirty:
            self._wake.set()

    def subscribe(self) -> Subscriber:
        """A new tab: it gets a full snapshot first, then every later change."""
        sub = Subscriber()
        sub.push(render.snapshot(self.state))
        sub.known_items = {entry.id for entry in self.state.items}
        self._subscribers.add(sub)
        return sub

    def watch_inspector(self, sub: Subscriber, watching: bool) -> None:
        """A tab opened (or closed) its protocol inspector: bring it up to date, then keep it so."""
        sub.watching_inspector = watching
        if watching and self.inspector is not None:
            sub.inspector = Cursor()  # entries may have been missed while it was closed: replace them all
            sub.push(self.inspector.batch().frame_for(sub.inspector))

    def broadcast(self, frame: str) -> None:
        """Send one frame to every tab as it is (not state: nothing for a later tab to catch up on)."""
        for sub in list(self._subscribers):
            sub.push(frame)

    def unsubscribe(self, sub: Subscriber) -> None:
        self._subscribers.discard(sub)

    @property
    def subscriber_count(self) -> int:
        return len(self._subscribers)

    def flush(self) -> None:
        """Render everything dirty and send one frame to each tab (the flusher calls this)."""
        dirty, self._dirty = self._dirty, set()
        self._wake.clear()
        if not dirty or not self._subscribers:
            return
        regions = "".join(render.region(self.state, key) for key in sorted(dirty) if is_region(key))
        entries = [entry for entry in self.state.items if entry.id in dirty]
        replaced = {entry.id: render.item(self.state, entry, oob=True) for entry in entries}
        appended = {entry.id: render.item(self.state, entry) for entry in entries}
        wire = self.inspector.batch() if self.inspector is not None and Aspect.PROTOCOL_LOG in dirty else None
        for sub in list(self._subscribers):
            frame = regions + self._entries_for(sub, entries, replaced, appended)
            if wire is not None and sub.watching_inspector:
                frame += wire.frame_for(sub.inspector)
            if frame:
                sub.push(frame)
            if sub.dropped:
                self._subscribers.discard(sub)
        self.frames_sent += 1

    @staticmethod
    def _entries_for(
        sub: Subscriber, entries: list[Item], replaced: dict[str, str], appended: dict[str, str]
    ) -> str:
        html: list[str] = []
        new: list[str] = []
        for entry in entries:
            entry_id = entry.id
            if entry_id in sub.known_items:
                html.append(replaced[entry_id])
            else:
                new.append(appended[entry_id])
                sub.known_items.add(entry_id)
        if new:
            html.append(render.append_items("".join(new)))
        return "".join(html)

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            # Let more changes pile up: this is what turns many chunks into one frame.
            await asyncio.sleep(self._interval)
            self.flush()
