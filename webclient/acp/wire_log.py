"""The protocol inspector's log: every JSON-RPC message in and out, routed to the session it belongs to.

Pure: no I/O, no HTML. `WireLog.record` is fed every wire message in wire order and decides its scope:

- a message with `params.sessionId` belongs to that session;
- a response belongs to the session of the request it answers (our requests and the agent's requests
  are separate id spaces, so requests are remembered per direction), and carries the round-trip time;
- a `session/new` request names no session yet: it is claimed by the session its response creates;
- everything else (`initialize`, `authenticate`, `session/list`, notifications without a session) is
  *connection* scope, shown in every session's view, because it shaped every session.

Each scope is bounded on its own, so one chatty session cannot push another session's history out, in
entries and in bytes (each message counted as its compact JSON): the oldest entries go first, and the
view says how many went. The newest entry always stays, so one message larger than the byte cap is
still shown; memory per scope stays within the cap plus one message (itself capped by the transport).
Scopes are named by session ids the agent chooses, so the whole log is bounded too: in bytes (the
largest scope gives up its oldest entries first, down to none but for the newest message of all) and in
scopes (past `MAX_SCOPES`, the scope created
first goes whole): 60 made-up session ids once held 316 MiB.
"""

from __future__ import annotations

import heapq
import itertools
import json
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

RESPONSE = "(response)"
NOTE = "note"
SCOPE_SIZE = 5000  # entries kept per session (and for the connection scope)
SCOPE_BYTES = 16 * 1024 * 1024  # bytes of messages kept per scope
TOTAL_BYTES = 16 * 1024 * 1024  # bytes of messages kept in all scopes together (one session may use them all)
MAX_SCOPES = 256  # sessions with entries of their own (the connection scope besides)
PENDING_SIZE = 10000  # unanswered requests remembered, so a flood of them cannot grow memory forever
PRETTY_LIMIT = 20000  # characters of pretty JSON rendered per entry; the download has everything


@dataclass(frozen=True)
class WireEntry:
    """One JSON-RPC message as the inspector shows it."""

    seq: int
    at: float  # time.monotonic() when it crossed the wire
    direction: str  # "in" (agent to us) or "out" (us to agent)
    method: str  # the method, or RESPONSE
    request_id: Any  # the JSON-RPC id (requests and responses), None for notifications
    session_id: str | None  # None: connection scope
    message: dict[str, Any]
    rtt_ms: float | None = None  # responses: time since their request
    request_method: str | None = None  # responses: the method of the request they answer
    size: int = 0  # about the length of the message as compact JSON, counted against the scope's byte cap
    version: int | None = None  # the ACP version of the connection it crossed (None: a note)

    @property
    def is_note(self) -> bool:
        """Not a message: what webclient did about the connection (a version fallback), in its place."""
        return self.direction == NOTE

    @property
    def is_response(self) -> bool:
        return self.method == RESPONSE

    @property
    def label(self) -> str:
        """The method to show and filter by: a response is named after its request."""
        if self.is_response:
            return f"{self.request_method} (response)" if self.request_method else RESPONSE
        return self.method

    @property
    def kind(self) -> str | None:
        """For `session/update`: which update it is (`agent_message_chunk`, `plan`...)."""
        params = self.message.get("params")
        update = params.get("update") if isinstance(params, dict) else None
        value = update.get("sessionUpdate") if isinstance(update, dict) else None
        return value if isinstance(value, str) else None

    @property
    def is_error(self) -> bool:
        return "error" in self.message


@dataclass(frozen=True)
class _Pending:
    at: float
    method: str
    session_id: str | None
    seq: int


class _Meta(NamedTuple):
    """What every entry has, whatever the message: made once, before the entry itself."""

    seq: int
    at: float
    direction: str
    size: int
    version: int | None


class WireLog:
    """Every message of one server's agent connection(s), bounded per scope."""

    def __init__(
        self, scope_size: int = SCOPE_SIZE, scope_bytes: int = SCOPE_BYTES, total_bytes: int = TOTAL_BYTES
    ) -> None:
        self._scope_size = scope_size
        self._scope_bytes = scope_bytes
        self._total_bytes = total_bytes
        self._total = 0
        self._scopes: dict[str | None, deque[WireEntry]] = {None: deque()}
        self._bytes: dict[str | None, int] = {}
        self._dropped: dict[str | None, int] = {}
        self._pending: dict[tuple[str, str], _Pending] = {}
        self._claimed: dict[int, str] = {}  # seq of a session/new request -> the session it created
        self._started: dict[str, float] = {}
        self._seq = itertools.count(1)
        self.last_seq = 0

    def record(
        self, direction: str, message: dict[str, Any], at: float | None = None, version: int | None = None
    ) -> WireEntry:
        """Log one message that crossed a connection speaking ACP `version`."""
        at = time.monotonic() if at is None else at
        seq = next(self._seq)
        self.last_seq = seq
        method = message.get("method")
        request_id = message.get("id")
        meta = _Meta(seq, at, direction, _message_size(message), version)
        if isinstance(method, str):
            entry = self._request_or_notification(meta, method, request_id, message)
        else:
            entry = self._response(meta, request_id, message)
        self._store(entry)
        return entry

    def note(self, text: str, at: float | None = None, session_id: str | None = None) -> WireEntry:
        """Log what webclient did about the connection (connection scope) or a session, in wire order."""
        at = time.monotonic() if at is None else at
        seq = next(self._seq)
        self.last_seq = seq
        message = {"note": text}
        entry = WireEntry(seq, at, NOTE, NOTE, None, session_id, message, size=_size(message))
        self._store(entry)
        return entry

    def _request_or_notification(
        self, meta: _Meta, method: str, request_id: Any, message: dict[str, Any]
    ) -> WireEntry:
        seq, at, direction, size, version = meta
        if direction == "out" and method == "initialize":
            self._pending.clear()  # a new connection: request ids start again
        session_id = _params_session(message)
        if request_id is not None:
            if len(self._pending) >= PENDING_SIZE:
                self._pending.pop(next(iter(self._pending)))
            self._pending[(direction, _key(request_id))] = _Pending(at, method, session_id, seq)
        return WireEntry(
            seq, at, direction, method, request_id, session_id, message, size=size, version=version
        )

    def _response(self, meta: _Meta, request_id: Any, message: dict[str, Any]) -> WireEntry:
        seq, at, direction, size, version = meta
        request_direction = "out" if direction == "in" else "in"
        pending = self._pending.pop((request_direction, _key(request_id)), None)
        if pending is None:
            return WireEntry(
                seq, at, direction, RESPONSE, request_id, None, message, size=size, version=version
            )
        session_id = pending.session_id
        if pending.method == "session/new" and session_id is None:
            created = _result_session(message)
            if created is not None:
                session_id = created
                self._claimed[pending.seq] = created
                self._started[created] = min(self._started.get(created, pending.at), pending.at)
        rtt = round((at - pending.at) * 1000, 3)
        return WireEntry(
            seq, at, direction, RESPONSE, request_id, session_id, message, rtt, pending.method, size, version
        )

    def _store(self, entry: WireEntry) -> None:
        scope = entry.session_id
        if scope is not None:
            self._started.setdefault(scope, entry.at)
        log = self._scopes.setdefault(scope, deque())
        log.append(entry)
        self._bytes[scope] = self._bytes.get(scope, 0) + entry.size
        self._total += entry.size
        while len(log) > 1 and (len(log) > self._scope_size or self._bytes[scope] > self._scope_bytes):
            self._drop_oldest(scope)
        while self._total > self._total_bytes:
            # The largest scope gives up its oldest entry; only the newest entry of all always stays.
            others = [s for s, kept in self._scopes.items() if kept and (s != scope or len(kept) > 1)]
            if not others:
                break
            self._drop_oldest(max(others, key=lambda s: self._bytes.get(s, 0)))
        if len(self._scopes) > MAX_SCOPES + 1:
            self._forget(next(s for s in self._scopes if s is not None and s != scope))

    def _drop_oldest(self, scope: str | None) -> None:
        oldest = self._scopes[scope].popleft()
        self._bytes[scope] -= oldest.size
        self._total -= oldest.size
        self._dropped[scope] = self._dropped.get(scope, 0) + 1
        if scope is None:
            self._claimed.pop(oldest.seq, None)

    def _forget(self, scope: str) -> None:
        """A whole session's scope goes (the oldest, when there are too many)."""
        self._total -= self._bytes.pop(scope, 0)
        del self._scopes[scope]
        self._dropped.pop(scope, None)
        self._started.pop(scope, None)

    # --- views ------------------------------------------------------------------------------------------

    def view(self, session_id: str | None) -> list[WireEntry]:
        """The entries one session's inspector shows, in wire order: its own and the connection's."""
        connection = (e for e in self._scopes[None] if self._visible_in(e, session_id))
        own = self._scopes.get(session_id, ()) if session_id is not None else ()
        return list(heapq.merge(connection, own, key=lambda e: e.seq))

    def _visible_in(self, entry: WireEntry, session_id: str | None) -> bool:
        owner = self._claimed.get(entry.seq)
        return owner is None or owner == session_id

    def messages(self) -> list[tuple[str, dict[str, Any]]]:
        """Every message still kept, of every scope, in wire order, as (direction, message)."""
        entries = heapq.merge(*self._scopes.values(), key=lambda e: e.seq)
        return [(e.direction, e.message) for e in entries]

    def dropped(self, session_id: str | None) -> int:
        """How many entries of this view the bounds already discarded."""
        own = self._dropped.get(session_id, 0) if session_id is not None else 0
        return own + self._dropped.get(None, 0)

    def started_at(self, session_id: str | None) -> float | None:
        """When the session started (its `session/new`, or its first message)."""
        if session_id is None:
            return None
        return self._started.get(session_id)


def base_time(log: WireLog, session_id: str | None, entries: list[WireEntry]) -> float:
    """The zero of the "time since session start" column."""
    started = log.started_at(session_id)
    if started is not None:
        return started
    return entries[0].at if entries else 0.0


def matches(entry: WireEntry, needle: str) -> bool:
    """Whether the entry's method (a response: its request's method) or its update kind contains `needle`.

    Case is ignored. The update kind counts so that "suggestions" finds `prompt_suggestions_update`.
    """
    needle = needle.strip().lower()
    return needle in entry.label.lower() or needle in (entry.kind or "").lower()


def filter_entries(entries: Iterable[WireEntry], needle: str | None) -> list[WireEntry]:
    if not needle or not needle.strip():
        return list(entries)
    return [e for e in entries if matches(e, needle)]


def since_ms(entry: WireEntry, base: float) -> float:
    return round((entry.at - base) * 1000, 3)


def record(entry: WireEntry, base: float) -> dict[str, Any]:
    """One JSONL line's object."""
    return {
        "seq": entry.seq,
        "t_ms": since_ms(entry, base),
        "direction": entry.direction,
        "method": entry.request_method if entry.is_response else entry.method,
        "response": entry.is_response,
        "id": entry.request_id,
        "rtt_ms": entry.rtt_ms,
        "version": entry.version,
        "message": entry.message,
    }


def to_jsonl(entries: Iterable[WireEntry], base: float) -> Iterator[str]:
    """Each entry as one line of JSON (newline-terminated)."""
    for entry in entries:
        yield json.dumps(record(entry, base), ensure_ascii=False, default=repr) + "\n"


def pretty(message: dict[str, Any], limit: int = PRETTY_LIMIT) -> str:
    text = json.dumps(message, indent=2, ensure_ascii=False, default=repr)
    if len(text) > limit:
        return text[:limit] + f"\n… ({len(text) - limit} more characters: download the log to see them)"
    return text


def _params_session(message: dict[str, Any]) -> str | None:
    params = message.get("params")
    value = params.get("sessionId") if isinstance(params, dict) else None
    return value if isinstance(value, str) else None


def _result_session(message: dict[str, Any]) -> str | None:
    result = message.get("result")
    value = result.get("sessionId") if isinstance(result, dict) else None
    return value if isinstance(value, str) else None


# The size of the message read last from a line long enough to be parsed on a worker thread: its line's
# length, which the log takes instead of walking it (100,000 values of 20,000 suggestions held every tab
# for 100 ms and more). Only the latest is kept, and only until the next message is logged: the one read
# is logged in the same step of the loop (a message the SDK copies first is walked), so a size is never
# taken for another object that got the same id later.
_measured: tuple[int, int] | None = None


def measured(message: Any, size: int) -> None:
    """Tell the log that `message`, just read, came from a line of `size` bytes (at least its `_size`)."""
    global _measured
    _measured = (id(message), size)


def _message_size(message: dict[str, Any]) -> int:
    global _measured
    known, _measured = _measured, None  # taken by the next message logged, whichever it is
    if known is not None and known[0] == id(message):
        return known[1]
    return _size(message)


# What Python holds beyond the text: a string object's header, a dict's slot, a list's (about; CPython
# 3.11, 64-bit). Counted, a flood of tiny messages is bounded by the memory it takes, not by its JSON
# alone: 100,000 one-character chunks were 15 MB of JSON but 150 MiB of objects.
_STRING_HELD = 49
_DICT_ITEM_HELD = 60
_LIST_ITEM_HELD = 8


# One loop over a stack, on purpose: every message read is measured, and a call per value was
# most of a flood chunk's measure (ten calls, 2.4 us of its 29 us; 1.7 us so). A stack, not
# recursion, so that no nesting an agent sends can exhaust Python's recursion limit here.
def _size(value: Any) -> int:
    """About the memory `value` holds: its length as compact JSON plus what Python holds it in, in a
    walk that costs its number of values, not its length: a string counts its characters and quotes (not
    its escapes nor its UTF-8 bytes). Serialising a 5 MB message to measure it held every other tab for
    20 ms, and the cap needs no more than this. A subclass of a dict or list measures as its base."""
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            total += len(item) + 2 + _STRING_HELD
        elif kind is dict:
            total += 1 + len(item) * (_DICT_ITEM_HELD + 4) if item else 2
            for key, inner in item.items():
                total += len(key) if type(key) is str else len(str(key))
                if type(inner) is str:
                    total += len(inner) + 2 + _STRING_HELD
                else:
                    stack.append(inner)
        elif kind is list:
            total += 1 + len(item) * (1 + _LIST_ITEM_HELD) if item else 2
            stack.extend(item)
        elif isinstance(item, str):
            total += len(item) + 2 + _STRING_HELD
        elif isinstance(item, dict | list):
            stack.append(dict(item) if isinstance(item, dict) else list(item))
        elif item is None or item is True:
            total += 4
        else:
            total += 5 if item is False else len(repr(item))
    return total


def _key(request_id: Any) -> str:
    # JSON-RPC ids are strings or numbers; 1 and "1" are different ids.
    return json.dumps(request_id)


def session_jsonl(log: WireLog, session_id: str | None, needle: str | None = None) -> str:
    """One session's view as JSONL (optionally only the methods matching `needle`), for the download."""
    entries = log.view(session_id)
    base = base_time(log, session_id, entries)
    return "".join(to_jsonl(filter_entries(entries, needle), base))
