"""Keeping one session's transcript in the store as it changes: batched, written off the event loop.

A `TranscriptKeeper` watches the change keys of its session. The first change starts a short timer;
when it fires, the entries that changed since the last write are turned into `KeptEntry`s (on the loop:
that only copies their text) and queued for the store's thread, so a streamed answer costs one write
per interval, never one per chunk. A session nobody has sent a prompt to is never written.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterable

from webclient.domain.kept.entries import KeptSummary, to_entry
from webclient.domain.kept.store import Put, TranscriptStore
from webclient.domain.state import SessionState

# Seconds between two writes of a session that keeps changing.
WRITE_INTERVAL = 0.5


class TranscriptKeeper:
    """Writes one session's transcript to `store`; `close` writes what is left and lets it be pruned."""

    def __init__(self, state: SessionState, store: TranscriptStore, interval: float = WRITE_INTERVAL) -> None:
        self.key = uuid.uuid4().hex
        self.state = state
        self.store = store
        self.interval = interval
        self.created = time.time()
        self._dirty: set[str] = set()
        self._everything = True  # nothing written yet: the first write takes every entry
        self._positions: dict[str, int] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._closed = False

    def changed(self, keys: Iterable[str]) -> None:
        """Some of the session changed (entry ids, aspects): written within `interval`."""
        if self._closed:
            return
        if not self._everything:
            self._dirty.update(keys)
        if self._timer is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return  # the server is being built: the first change on its loop writes this one too
            self._timer = loop.call_later(self.interval, self.write)

    def write(self) -> None:
        """Queue what changed since the last write; nothing while no prompt was sent."""
        self._timer = None
        if self.state.transcript.first_user_message() is None:
            return  # never used: nothing kept (the first write, later, takes every entry)
        items = self.state.items if self._everything else self.state.transcript.entries(self._dirty)
        self._everything, self._dirty = False, set()
        put = Put(self.summary())
        for item in items:
            entry = to_entry(item)
            if entry is not None:
                put.entries[item.id] = (self._positions.setdefault(item.id, len(self._positions)), entry)
        self.store.hold(self.key)
        self.store.put(put)

    def summary(self) -> KeptSummary:
        state = self.state
        return KeptSummary(
            key=self.key,
            agent_key=state.agent_key,
            agent_label=state.agent_label,
            session_id=state.session_id,
            title=state.display_title,
            created=self.created,
            updated=time.time(),
        )

    def close(self) -> None:
        """The session closes: what changed last is written, and its copy may now be pruned."""
        if self._closed:
            return
        if self._timer is not None:
            self._timer.cancel()
        self.write()
        self._closed = True
        self.store.release(self.key)
