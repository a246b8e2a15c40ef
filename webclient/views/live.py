"""Fan-out of one session's changes to every connected tab: at once when quiet, coalesced under load.

State changes only mark keys dirty; a single flusher task owned by the hub renders what is dirty and
sends one frame to each tab. After a quiet spell the first change goes out on the next loop turn (a
chunk is on screen a few milliseconds after the agent wrote it). While changes keep coming, the next
frame waits for two things: the frame budget (`interval`, the least time between two frames) and every
tab having taken its previous frame (a tab that falls behind slows the frames down instead of piling
them up). So a flood costs the browser a bounded number of swaps, all of the same markup in every tab.

Every frame to a tab is numbered, and a digest follows each burst (`views/live_sync.py`): a page that
missed a frame asks for a snapshot (`resync`), which the flusher sends before its next frame.

The hub only fans out: what each tab shows is its `TabView` (`views/tab_view.py`), and what a tab is sent
of a streamed answer or a growing card is said by that kind's renderer (`views/delta.py`), which owns
the timers that render it again later.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, replace

from webclient.aio import cancel_and_wait
from webclient.domain.items import Item, as_it_is
from webclient.domain.state import Aspect, SessionState
from webclient.views import render
from webclient.views.card_deltas import CardDeltas
from webclient.views.delta import DeltaFrame, DeltaRenderer
from webclient.views.inspector import Batch, Cursor, InspectorFeed
from webclient.views.live_sync import DigestBeacon, digest
from webclient.views.regions import is_region
from webclient.views.rendered import Rendered
from webclient.views.streamed import LONG_MARKDOWN
from webclient.views.subscriber import Subscriber
from webclient.views.text_deltas import TextDeltas
from webclient.views.weight import heavy, suggestions_size, text_size

# The longest the next frame waits for a slow tab to take its previous one: a stuck tab must not stall
# the others (it is dropped once its queue is full).
MAX_BACKLOG_WAIT = 0.5

log = logging.getLogger(__name__)


class LiveHub:
    """Owns the dirty set and the flusher task for one session."""

    def __init__(self, state: SessionState, interval: float, inspector: InspectorFeed | None = None) -> None:
        self.state = state
        self._interval = interval
        self._subscribers: set[Subscriber] = set()
        self._dirty: set[str] = set()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        # The kinds of entry sent as what changed, asked in this order (an answer's text, a card).
        self._kinds: tuple[DeltaRenderer, ...] = (TextDeltas(self.mark), CardDeltas(self.mark))
        self.frames_sent = 0
        self.inspector = inspector  # None: no protocol inspector
        self._resyncs: set[Subscriber] = set()  # tabs that asked for a fresh snapshot
        self._rendering = False
        self._beacon = DigestBeacon(state, self._tell_digest, self._settled)
        # What the session looks like, as a name: this hub's own (a page of another server start or
        # another session never matches) and a count of the changes marked so far.
        self._epoch = secrets.token_hex(6)
        self._changes = 0

    @property
    def revision(self) -> str:
        """Names the session as it is now; any change marked since gives another name. A page rendered
        now hands it to its socket, which then needs no snapshot if nothing changed meanwhile."""
        return f"{self._epoch}-{self._changes}"

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="live-hub-flusher")

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None
        for kind in self._kinds:
            await kind.stop()
        self._beacon.stop()
        self._drop_tabs()  # a tab whose queue is full too: without its end marker it stays connected, deaf

    def mark(self, keys: Iterable[str]) -> None:
        """Note that these parts of the state changed; they go out with the next frame."""
        if not isinstance(keys, set | frozenset):
            keys = set(keys)
        self._changes += 1  # counted before any is left out: a name must change whenever the state did
        if Aspect.PROTOCOL_LOG in keys and not self._inspected():
            # Only a tab whose inspector is open is sent the log (one that opens it gets all of it then):
            # with none, a message crossing the wire is no reason for a frame.
            keys = keys - {Aspect.PROTOCOL_LOG}
        if keys:
            self._dirty.update(keys)
            self._wake.set()

    def _inspected(self) -> bool:
        return any(sub.view.watching_inspector for sub in self._subscribers)

    def subscribe(self, shown: str | None = None) -> Subscriber:
        """A new tab: it gets a full snapshot first, then every later change. A tab whose page was rendered
        at `shown`, this hub's `revision` still, shows the session as it is: its snapshot is empty (a
        long transcript is neither rendered again nor swapped into the page it is already in)."""
        sub = Subscriber()
        sub.snapshot("" if shown == self.revision else render.snapshot(self.state), self.state)
        self._subscribers.add(sub)
        return sub

    def resync(self, sub: Subscriber, reason: str = "gap", seen: str = "") -> None:
        """The tab found it missed something: it is sent a fresh snapshot before the next frame (by the
        flusher, so no frame rendered for what it showed before follows the snapshot)."""
        # Rare, and each one a frame lost on the way or a page that went its own way: worth a line.
        log.info(
            "a tab asked for a snapshot (%s; it showed %r, the session %r)", reason, seen, digest(self.state)
        )
        self._resyncs.add(sub)
        self._wake.set()

    def _send_snapshots(self) -> None:
        resyncs, self._resyncs = self._resyncs & self._subscribers, set()
        for sub in resyncs:
            sub.snapshot(render.snapshot(self.state), self.state)
            if sub.view.watching_inspector:
                self.watch_inspector(sub, True)
        if resyncs:
            self._beacon.frame_sent()

    def _settled(self) -> bool:
        """Every change is out to the tabs: nothing dirty, no frame rendering, no snapshot due."""
        return not self._dirty and not self._rendering and not self._resyncs

    def _tell_digest(self, digest: str) -> None:
        for sub in list(self._subscribers):
            sub.push("", digest=digest)

    def watch_inspector(self, sub: Subscriber, watching: bool) -> None:
        """A tab opened (or closed) its protocol inspector: bring it up to date, then keep it so."""
        sub.view.watching_inspector = watching
        if watching and self.inspector is not None:
            # Entries may have been missed while it was closed: replace them all.
            sub.view.inspector = Cursor()
            sub.push(self.inspector.batch().frame_for(sub.view.inspector))

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
        """Render everything dirty and send one frame to each tab, here on the loop (the flusher calls
        `_flush`, which renders a heavy frame on a worker thread)."""
        taken = self._take()
        if taken is not None:
            self._deliver(taken, self._render(taken))

    async def _flush(self) -> None:
        taken = self._take()
        if taken is None:
            return
        sizes = [self._work(entry, taken.now) for entry in taken.entries]
        if Aspect.SUGGESTIONS in taken.dirty:
            sizes.append(suggestions_size(self.state.suggestions))
        # One huge chunk, tool update or diff, a long suggestion list, or a long block of an answer to
        # render as Markdown: rendered off the loop, so other tabs are served meanwhile.
        # The state may change while it renders; whatever changes is marked again and goes out next.
        off_loop = heavy(sizes)
        if not off_loop and self._markdown_work(taken) > LONG_MARKDOWN:
            off_loop = True
            self._send_ahead(taken)
        if off_loop:
            # The loop goes on applying the agent's updates while a worker thread renders: the thread reads
            # the entries as they were taken. Read live, a card's content grew between the entries a tab
            # was sent and the count it was recorded as showing, and those entries never reached the page.
            taken = replace(taken, entries=[as_it_is(entry) for entry in taken.entries])
        self._rendering = True
        try:
            frames = await asyncio.to_thread(self._render, taken) if off_loop else self._render(taken)
        finally:
            self._rendering = False
        self._deliver(taken, frames)

    def _send_ahead(self, taken: _Taken) -> None:
        """What arrived goes out appended at once, ahead of a frame that renders a long finished block on
        a worker thread: the chunks that finished a list of 2,000 items waited for its render (hundreds of
        milliseconds on a busy machine). The render follows, and replaces what was sent ahead."""
        for sub in taken.subscribers:
            parts = [
                html
                for entry in taken.entries
                for kind in taken.frames
                if (html := kind.ahead(entry, sub.view))
            ]
            if parts:
                sub.push("".join(parts))

    def _take(self) -> _Taken | None:
        self._send_snapshots()
        dirty, self._dirty = self._dirty, set()
        self._wake.clear()
        if not dirty or not self._subscribers:
            return None
        # The protocol log's view goes only to tabs whose inspector is open: with none, it is not read
        # (reading it walks the session's kept messages, thousands, on every frame of a flood).
        wire = (
            self.inspector.batch()
            if self.inspector is not None and Aspect.PROTOCOL_LOG in dirty and self._inspected()
            else None
        )
        entries = self.state.transcript.entries(dirty)
        now = asyncio.get_running_loop().time()
        frames = [kind.frame(self.state, dirty, now) for kind in self._kinds]
        return _Taken(dirty, entries, list(self._subscribers), wire, now, frames)

    def _work(self, entry: Item, now: float) -> int:
        """What rendering this entry's change costs, in characters (see `views/weight.py`)."""
        for kind in self._kinds:
            work = kind.work(entry, now)
            if work is not None:
                return work
        return text_size(entry, self.state.terminals)

    def _markdown_work(self, taken: _Taken) -> int:
        """The characters of streamed answers' Markdown this frame renders (see `Stream.markdown_work`)."""
        return sum(kind.markdown_work(entry, taken.now) for entry in taken.entries for kind in self._kinds)

    def _render(self, taken: _Taken) -> list[tuple[Subscriber, str]]:
        regions = "".join(render.region(self.state, key) for key in sorted(taken.dirty) if is_region(key))
        rendered = Rendered(self.state, taken.frames)
        return [(sub, regions + rendered.entries_for(sub.view, taken.entries)) for sub in taken.subscribers]

    def _deliver(self, taken: _Taken, frames: list[tuple[Subscriber, str]]) -> None:
        for sub, frame in frames:
            if taken.wire is not None and sub.view.watching_inspector:
                frame += taken.wire.frame_for(sub.view.inspector)
            if frame:
                sub.push(frame)
            if sub.dropped:
                self._subscribers.discard(sub)
        self.frames_sent += 1
        self._beacon.frame_sent()
        tabs = [sub.view for sub in self._subscribers]
        for kind in taken.frames:  # what is due later: a long tail's render, a card whole
            kind.sent(taken.entries, tabs)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        last = -float("inf")
        while True:
            await self._wake.wait()
            # One loop turn: the changes read from the same burst of agent output join this frame.
            await asyncio.sleep(0)
            wait = last + self._interval - loop.time()
            if wait > 0:  # changes keep coming: hold to the frame budget, so they coalesce
                await asyncio.sleep(wait)
            await self._tabs_drained()
            try:
                await self._flush()
            except Exception:
                # The changes this frame took are gone from the dirty set: a tab kept on would show the
                # state before them for good (a finished turn left "working"). Each tab reconnects instead,
                # and its fresh snapshot has everything; the flusher goes on for the next changes.
                log.exception("a live frame failed to render; its tabs reconnect for a fresh snapshot")
                self._drop_tabs()
            last = loop.time()

    def _drop_tabs(self) -> None:
        """End every tab's stream: each reconnects and is sent a snapshot of the state as it is then."""
        for sub in list(self._subscribers):
            sub.end()
        self._subscribers.clear()

    async def _tabs_drained(self) -> None:
        """Wait (a bounded time) until every tab took its last frame: a backlog means it cannot keep up."""
        waiting = [sub.drained() for sub in self._subscribers if not sub.frames.empty()]
        if not waiting:
            return
        tasks = [asyncio.ensure_future(w) for w in waiting]
        try:
            await asyncio.wait(tasks, timeout=MAX_BACKLOG_WAIT)
        finally:
            for task in tasks:
                task.cancel()


@dataclass(frozen=True)
class _Taken:
    """What one frame is made of, taken on the loop: the changes, and the tabs it goes to."""

    dirty: set[str]
    entries: list[Item]
    subscribers: list[Subscriber]
    wire: Batch | None
    now: float
    frames: list[DeltaFrame]  # each kind's rendering of this frame
