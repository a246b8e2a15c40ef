"""The kept transcripts on disk: one SQLite database in the user's state folder, written by one thread.

`TranscriptDatabase` is the database itself (synchronous, one connection): transcripts are written in
batches, one transaction each, in WAL mode, so a server killed at any moment leaves every batch it
committed; then the store is pruned to its bounds (age, then total size, oldest first; a transcript
being written by an open session is held, never pruned). The folder is the user's alone (0700) and so
is the file (0600).

An entry is written whole when it is new or changed, but a message that only grew is written as the
text it gained, a row of `pieces` its reading joins to the entry's text: a streamed answer costs each
write what arrived since the last, not its whole text again. A transcript's size is kept up to date by
each write's difference, never summed again over its entries.

`TranscriptStore` runs the database on a worker thread that owns it: the event loop only queues writes
(`put`, never waiting) and awaits reads. Everything that can fail on disk (`sqlite3.Error`, `OSError`,
a row that does not read back as a `KeptEntry`) is caught in one place, `_Worker.run_one`: it is
logged, said in `problem`, and costs only what was not written or read, never a session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from webclient.domain.kept.entries import KeptEntry, KeptSummary, KeptTranscript

log = logging.getLogger(__name__)
# How soon a batch that could not be written (a full disk) is tried again, when nothing new comes.
RETRY_SECONDS = 5.0

FOLDER_NAME = "transcripts"
FILE_NAME = "transcripts.sqlite3"
SCHEMA = """
CREATE TABLE IF NOT EXISTS transcripts (
    key TEXT PRIMARY KEY, agent_key TEXT NOT NULL, agent_label TEXT NOT NULL, session_id TEXT,
    title TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL, size INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS transcripts_by_update ON transcripts (updated);
CREATE TABLE IF NOT EXISTS entries (
    key TEXT NOT NULL REFERENCES transcripts (key) ON DELETE CASCADE, entry_id TEXT NOT NULL,
    position INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (key, entry_id));
CREATE TABLE IF NOT EXISTS pieces (
    key TEXT NOT NULL, entry_id TEXT NOT NULL, text TEXT NOT NULL,
    FOREIGN KEY (key, entry_id) REFERENCES entries (key, entry_id) ON DELETE CASCADE);
CREATE INDEX IF NOT EXISTS pieces_by_entry ON pieces (key, entry_id);
"""
_SUMMARY = "SELECT key, agent_key, agent_label, session_id, title, created, updated, size FROM transcripts"

T = TypeVar("T")


@dataclass(frozen=True)
class Bounds:
    """How much the store keeps: `max_bytes` of entries in all, none older than `max_age` seconds."""

    max_bytes: int
    max_age: float


@dataclass
class Put:
    """One session's transcript, as it stands: its summary, the entries that changed since the last put
    (entry id, position, entry), and the text messages already written gained (entry id, text)."""

    summary: KeptSummary
    entries: dict[str, tuple[int, KeptEntry]] = field(default_factory=dict)
    appended: dict[str, str] = field(default_factory=dict)

    def merge(self, later: Put) -> None:
        """Take a later put of the same transcript into this one, as if both were written in turn."""
        self.summary = later.summary
        for entry_id, written in later.entries.items():
            self.entries[entry_id] = written
            self.appended.pop(entry_id, None)  # written whole after it: what it gained is in it
        for entry_id, text in later.appended.items():
            self.appended[entry_id] = self.appended.get(entry_id, "") + text


class TranscriptDatabase:
    """The SQLite file, opened (and created, user-only) in `folder`; for one thread at a time."""

    def __init__(self, folder: Path, bounds: Bounds, clock: Callable[[], float] = time.time) -> None:
        self.path = folder / FILE_NAME
        self.bounds = bounds
        self.clock = clock
        _private_folder(folder)
        # Created user-only before SQLite opens it; its -wal and -shm files take the same mode.
        os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        os.chmod(self.path, 0o600)
        self.connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("PRAGMA synchronous=NORMAL")  # in WAL: a killed process loses nothing
        self.connection.execute("PRAGMA foreign_keys=ON")
        self.connection.execute("PRAGMA busy_timeout=5000")  # another server on the same folder
        self.connection.executescript(SCHEMA)

    def close(self) -> None:
        self.connection.close()

    def write(self, puts: Iterable[Put], held: frozenset[str] = frozenset()) -> list[str]:
        """Write the puts in one transaction, then prune; returns the keys pruned."""
        db = self.connection
        db.execute("BEGIN IMMEDIATE")
        try:
            for put in puts:
                self._write_one(put)
            pruned = self._prune(held)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:  # SQLite ends it by itself on a full disk: its error is the cause to tell
                db.execute("ROLLBACK")
            raise
        return pruned

    def _write_one(self, put: Put) -> None:
        s = put.summary
        self.connection.execute(
            "INSERT INTO transcripts (key, agent_key, agent_label, session_id, title, created, updated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET session_id = excluded.session_id, "
            "title = excluded.title, updated = excluded.updated",
            (s.key, s.agent_key, s.agent_label, s.session_id, s.title, s.created, s.updated),
        )
        db = self.connection
        grown = 0  # bytes the transcript's entries grew by (or shrank, below zero)
        for entry_id, (pos, entry) in put.entries.items():  # whole: what it was written as goes
            grown -= self._entry_size(s.key, entry_id)
            db.execute("DELETE FROM pieces WHERE key = ? AND entry_id = ?", (s.key, entry_id))
            body = entry.model_dump_json()
            db.execute(
                "INSERT INTO entries (key, entry_id, position, body) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (key, entry_id) DO UPDATE SET body = excluded.body",
                (s.key, entry_id, pos, body),
            )
            grown += len(body.encode())
        # Only to an entry written before (a put never appends to an entry it did not write first).
        db.executemany(
            "INSERT INTO pieces (key, entry_id, text) SELECT key, entry_id, ? FROM entries "
            "WHERE key = ? AND entry_id = ?",
            [(text, s.key, entry_id) for entry_id, text in put.appended.items()],
        )
        grown += sum(len(text.encode()) for text in put.appended.values())
        db.execute("UPDATE transcripts SET size = MAX(0, size + ?) WHERE key = ?", (grown, s.key))

    def _entry_size(self, key: str, entry_id: str) -> int:
        """The bytes one entry takes now: its body and its pieces (0: not written yet)."""
        row = self.connection.execute(
            "SELECT LENGTH(CAST(body AS BLOB)) + (SELECT COALESCE(SUM(LENGTH(CAST(text AS BLOB))), 0) "
            "FROM pieces WHERE key = entries.key AND entry_id = entries.entry_id) "
            "FROM entries WHERE key = ? AND entry_id = ?",
            (key, entry_id),
        ).fetchone()
        return int(row[0]) if row is not None else 0

    def _prune(self, held: frozenset[str]) -> list[str]:
        """Drop what is too old, then the oldest until the rest fits; a held transcript stays."""
        rows = self.connection.execute(
            "SELECT key, updated, size FROM transcripts ORDER BY updated"
        ).fetchall()
        cutoff = self.clock() - self.bounds.max_age
        total = sum(size for _, _, size in rows)
        pruned: list[str] = []
        for key, updated, size in rows:
            if key in held:
                continue
            if updated < cutoff or total > self.bounds.max_bytes:
                pruned.append(key)
                total -= size
        self.connection.executemany("DELETE FROM transcripts WHERE key = ?", [(key,) for key in pruned])
        return pruned

    def summaries(self) -> list[KeptSummary]:
        """Every kept transcript, the most recently written first."""
        rows = self.connection.execute(f"{_SUMMARY} ORDER BY updated DESC").fetchall()
        return [KeptSummary(*row) for row in rows]

    def load(self, key: str) -> KeptTranscript | None:
        row = self.connection.execute(f"{_SUMMARY} WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        bodies = self.connection.execute(
            "SELECT entry_id, body FROM entries WHERE key = ? ORDER BY position", (key,)
        ).fetchall()
        gained: dict[str, list[str]] = {}
        for entry_id, text in self.connection.execute(
            "SELECT entry_id, text FROM pieces WHERE key = ? ORDER BY rowid", (key,)
        ):
            gained.setdefault(entry_id, []).append(text)
        entries = []
        for entry_id, body in bodies:
            entry = KeptEntry.model_validate_json(body)
            if entry_id in gained:
                entry = entry.with_text(entry.text + "".join(gained[entry_id]))
            entries.append(entry)
        return KeptTranscript(KeptSummary(*row), tuple(entries))

    def delete(self, key: str) -> bool:
        return self.connection.execute("DELETE FROM transcripts WHERE key = ?", (key,)).rowcount > 0


def _private_folder(folder: Path) -> None:
    """The folder exists and only its user may enter it (the state folder above it too, if we make it)."""
    folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.mkdir(mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)


class TranscriptStore:
    """The database on a worker thread of its own: writes are queued and batched, reads awaited.

    `folder` None keeps nothing (every call is a no-op, reads find nothing).
    """

    def __init__(self, folder: Path | None, bounds: Bounds) -> None:
        self.folder = folder
        self.bounds = bounds
        self.problem: str | None = None  # the last failure, as it should be told
        # Told once on the page (on the loop the store was started on), with the real cause.
        self.on_problem: Callable[[str], object] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._told = False
        self._worker: _Worker | None = None
        self._held: set[str] = set()  # transcripts open sessions still write: never pruned

    def start(self) -> None:
        with contextlib.suppress(RuntimeError):
            self._loop = asyncio.get_running_loop()
        if self.folder is not None and self._worker is None:
            self._worker = _Worker(self, self.folder)
            self._worker.start()

    def close(self) -> None:
        """Write what is queued, close the database and end the thread."""
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.stop()

    def hold(self, key: str) -> None:
        self._held.add(key)

    def release(self, key: str) -> None:
        self._held.discard(key)

    def put(self, put: Put) -> None:
        """Queue a write; it goes out with the next batch (never waits, never raises)."""
        if self._worker is not None:
            self._worker.jobs.put(put)

    async def summaries(self) -> list[KeptSummary]:
        return await self._ask(lambda db: db.summaries(), [])

    async def load(self, key: str) -> KeptTranscript | None:
        return await self._ask(lambda db: db.load(key), None)

    async def delete(self, key: str) -> bool:
        return await self._ask(lambda db: db.delete(key), False)

    async def flushed(self) -> None:
        """Until every write queued before this call is on disk."""
        await self._ask(lambda db: None, None)

    async def _ask(self, call: Callable[[TranscriptDatabase], T], default: T) -> T:
        if self._worker is None:
            return default
        future: Future[Any] = Future()
        self._worker.jobs.put(_Read(call, future, default))
        result: T = await asyncio.wrap_future(future)
        return result

    def failed(self, what: str, exc: BaseException) -> None:
        self.problem = f"{what}: {exc}"
        log.warning("kept transcripts (%s): %s", self.folder, self.problem)
        if self._told or self.on_problem is None or self._loop is None:
            return
        self._told = True  # once: a full disk fails every batch until there is space again
        text = f"transcripts are not being kept in {self.folder}: {self.problem}"
        with contextlib.suppress(RuntimeError):  # the loop has closed: the terminal has it
            self._loop.call_soon_threadsafe(self.on_problem, text)

    @property
    def held(self) -> frozenset[str]:
        return frozenset(self._held)


@dataclass
class _Read:
    call: Callable[[TranscriptDatabase], Any]
    future: Future[Any]
    default: Any


_STOP = object()


class _Worker:
    """The thread that owns the database: it takes every job queued, writes the puts among them as one
    batch, then answers the reads in order."""

    def __init__(self, store: TranscriptStore, folder: Path) -> None:
        self.store = store
        self.folder = folder
        self.jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self.run, name="transcript-store", daemon=True)
        self.db: TranscriptDatabase | None = None
        self.failed: dict[str, Put] = {}  # the puts of the batch that could not be written

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.jobs.put(_STOP)
        self.thread.join(timeout=30)

    def run(self) -> None:
        self.db = self.run_one("cannot open the database", self._open, None)
        stopping = False
        while not stopping:
            try:  # a failed batch is tried again, with or without new jobs
                jobs = [self.jobs.get(timeout=RETRY_SECONDS if self.failed else None)]
            except queue.Empty:
                jobs = []
            while not self.jobs.empty():
                jobs.append(self.jobs.get())
            stopping = any(job is _STOP for job in jobs)
            self._batch([job for job in jobs if job is not _STOP])
        if self.db is not None:
            self.run_one("cannot close the database", self.db.close, None)

    def _open(self) -> TranscriptDatabase:
        return TranscriptDatabase(self.folder, self.store.bounds)

    def _batch(self, jobs: Sequence[Any]) -> None:
        puts, self.failed = self.failed, {}  # what failed last time goes first, merged with what is new
        for job in jobs:
            if isinstance(job, Put):  # one session's puts merge: its latest summary, every entry changed
                puts.setdefault(job.summary.key, Put(job.summary)).merge(job)
        db = self.db
        held = self.store.held
        if (
            puts
            and db is not None
            and not self.run_one("cannot write", lambda: _written(db, puts, held), False)
        ):
            self.failed = puts  # a full disk: kept, and written again once there is space
        for job in jobs:
            if isinstance(job, _Read):
                job.future.set_result(self._read(job, db))

    def _read(self, read: _Read, db: TranscriptDatabase | None) -> Any:
        if db is None:
            return read.default
        return self.run_one("cannot read", lambda: read.call(db), read.default)

    def run_one(self, what: str, call: Callable[[], T], default: T) -> T:
        """The one place a failure of the store is caught: said, logged, and answered by `default`."""
        try:
            return call()
        except (sqlite3.Error, OSError, ValidationError, ValueError) as exc:
            self.store.failed(what, exc)
            return default


def _written(db: TranscriptDatabase, puts: dict[str, Put], held: frozenset[str]) -> bool:
    db.write(puts.values(), held)
    return True
