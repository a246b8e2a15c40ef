"""Keeping one session's transcript in the store as it changes: batched, written off the event loop.

A `TranscriptKeeper` watches the change keys of its session. The first change starts a short timer;
when it fires, the entries that changed since the last write are turned into `KeptEntry`s and queued
for the store's thread, so a streamed answer costs one write per interval, never one per chunk. A
message that only grew since it was last written is queued as the text it gained: each write costs what
arrived since the last one, however long the answer. A session nobody has sent a prompt to is never
written.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterable

from webclient.domain.kept.database import Put
from webclient.domain.kept.entries import KeptEntry, KeptSummary, to_entry
from webclient.domain.kept.store import TranscriptStore
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
        # Each message as last written (the same text object, no copy): what it gains is appended.
        self._messages: dict[str, KeptEntry] = {}
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
            if entry is None:
                continue
            gained = self._gained(item.id, entry)
            if gained is not None:
                if gained:
                    put.appended[item.id] = gained
            else:
                put.entries[item.id] = (self._positions.setdefault(item.id, len(self._positions)), entry)
            if entry.kind == "message":
                self._messages[item.id] = entry
        self.store.hold(self.key)
        self.store.put(put)

    def _gained(self, entry_id: str, entry: KeptEntry) -> str | None:
        """The text a message gained since it was written, its text only grown; None: written whole."""
        before = self._messages.get(entry_id)
        if before is None or entry.with_text(before.text) != before:
            return None  # new, or something but its text changed (or not a message)
        text, old = entry.text, before.text
        if len(text) < len(old) or not text.startswith(old):
            return None  # replaced, or cut at the bound: written whole again
        return text[len(old) :]

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
