"""One connected tab as the live frames see it: the frames waiting for it, and what it already shows."""

from __future__ import annotations

import asyncio
import contextlib

from webclient.domain.prompt import ComposerAttachments
from webclient.views.card_stream import CardShown
from webclient.views.inspector import Cursor
from webclient.views.streamed import Shown

# A tab that falls this many frames behind is dropped; it reconnects and gets a fresh snapshot.
MAX_QUEUED_FRAMES = 256


class _FrameQueue(asyncio.Queue[str | None]):
    """A tab's frames; `empty` is set whenever the tab has taken all of them, however it took them."""

    def __init__(self) -> None:
        super().__init__(maxsize=MAX_QUEUED_FRAMES)
        self.empty_event = asyncio.Event()
        self.empty_event.set()

    def _put(self, item: str | None) -> None:
        super()._put(item)  # type: ignore[misc]
        self.empty_event.clear()

    def _get(self) -> str | None:
        item: str | None = super()._get()  # type: ignore[misc]
        if self.empty():
            self.empty_event.set()
        return item


class Subscriber:
    """One connected tab: the frames waiting for it and the transcript entries it already has."""

    def __init__(self) -> None:
        self.frames = _FrameQueue()
        self.known_items: set[str] = set()
        # For each streamed answer this tab has, what it shows of it; the same of each card with a terminal.
        self.streamed: dict[str, Shown] = {}
        self.cards: dict[str, CardShown] = {}
        self.inspector = Cursor()  # what this tab's protocol inspector already shows
        # Only a tab whose inspector is open is sent its entries: a closed panel costs nothing.
        self.watching_inspector = False
        self.dropped = False
        # This tab's composer attachments: the page only holds their opaque ids.
        self.composer = ComposerAttachments()

    async def drained(self) -> None:
        """Wait until this tab has taken every frame it was given."""
        await self.frames.empty_event.wait()

    def push(self, frame: str) -> None:
        if self.dropped:
            return
        try:
            self.frames.put_nowait(frame)
        except asyncio.QueueFull:
            self.end()

    def end(self) -> None:
        """Send nothing more: the end-of-stream marker closes the tab's socket, and the tab reconnects."""
        if self.dropped:
            return
        self.dropped = True
        if self.frames.full():  # make room for the marker
            with contextlib.suppress(asyncio.QueueEmpty):
                self.frames.get_nowait()
        self.frames.put_nowait(None)
