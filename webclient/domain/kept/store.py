"""The kept transcripts on disk: one SQLite database in the user's state folder, written by one thread.

`TranscriptDatabase` (`database.py`) is the database itself.

`TranscriptStore` runs the database on a worker thread that owns it: the event loop only queues writes
(`put`, never waiting) and awaits reads. Everything that can fail on disk (`sqlite3.Error`, `OSError`,
a row that does not read back as a `KeptEntry`) is caught in one place, `_Worker.run_one`: it is
logged, said in `problem`, and costs only what was not written or read, never a session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import sqlite3
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from webclient.domain.kept.database import Bounds, Put, TranscriptDatabase
from webclient.domain.kept.entries import KeptSummary, KeptTranscript
from webclient.settings import Settings

log = logging.getLogger(__name__)
# How soon a batch that could not be written (a full disk) is tried again, when nothing new comes.
RETRY_SECONDS = 5.0

FOLDER_NAME = "transcripts"
T = TypeVar("T")


class TranscriptStore:
    """The database on a worker thread of its own: writes are queued and batched, reads awaited.

    `folder` None keeps nothing (every call is a no-op, reads find nothing).
    """

    @classmethod
    def for_settings(cls, settings: Settings) -> TranscriptStore:
        """The store `settings` ask for: in the state folder, or none kept (`keep_transcripts` off)."""
        folder = settings.state_dir / FOLDER_NAME if settings.keep_transcripts else None
        mib, days = settings.kept_transcripts_max_mb, settings.kept_transcripts_max_days
        return cls(folder, Bounds(mib * 1024 * 1024, days * 86400))

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
