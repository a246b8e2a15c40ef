"""One connected tab as the live frames see it: the frames waiting for it, numbered, and its view.

Every frame pushed is numbered (`views/live_sync.py`): the page checks that none is missing. What the tab
already shows is its `TabView` (`views/tab_view.py`).
"""

from __future__ import annotations

import asyncio
import contextlib

from webclient.domain.prompt import ComposerAttachments
from webclient.domain.state import SessionState
from webclient.views.live_sync import header
from webclient.views.tab_view import TabView

# A tab that falls this many frames behind is dropped; it reconnects and gets a fresh snapshot.
MAX_QUEUED_FRAMES = 256


class _FrameQueue(asyncio.Queue[str | None]):
    """A tab's frames; `empty` is set whenever the tab has taken all of them, however it took them."""

    def __init__(self) -> None:
        super().__init__(maxsize=MAX_QUEUED_FRAMES)
        self.empty_event = asyncio.Event()
        self.empty_event.set()

    def _put(self, item: str | None) -> None:
        super()._put(item)
        self.empty_event.clear()

    def _get(self) -> str | None:
        item: str | None = super()._get()
        if self.empty():
            self.empty_event.set()
        return item


class Subscriber:
    """One connected tab: the frames waiting for it, their numbering, and what it already shows (`view`)."""

    def __init__(self) -> None:
        self.frames = _FrameQueue()
        self.view = TabView()
        self.dropped = False
        self.seq = 0  # the number of the last frame pushed (the page expects the next one to be seq + 1)
        # This tab's composer attachments: the page only holds their opaque ids.
        self.composer = ComposerAttachments()

    async def drained(self) -> None:
        """Wait until this tab has taken every frame it was given."""
        await self.frames.empty_event.wait()

    def push(self, frame: str, *, snapshot: bool = False, digest: str | None = None) -> None:
        """Queue `frame` for the tab, numbered; `snapshot` marks a full snapshot, `digest` says what the page
        should show once it applied it (see `views/live_sync.py`)."""
        if self.dropped:
            return
        try:
            self.frames.put_nowait(header(self.seq + 1, snapshot=snapshot, digest=digest) + frame)
        except asyncio.QueueFull:
            self.end()
        else:
            self.seq += 1

    def snapshot(self, frame: str, state: SessionState) -> None:
        """Queue `frame`, a full snapshot of `state`, numbered as one: the tab shows that from now on, and
        nothing streamed before it."""
        self.push(frame, snapshot=True)
        self.view.shows(state)

    def end(self) -> None:
        """Send nothing more: the end-of-stream marker closes the tab's socket, and the tab reconnects."""
        if self.dropped:
            return
        self.dropped = True
        if self.frames.full():  # make room for the marker
            with contextlib.suppress(asyncio.QueueEmpty):
                self.frames.get_nowait()
        self.frames.put_nowait(None)
