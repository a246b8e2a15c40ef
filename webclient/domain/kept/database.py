"""The kept transcripts' SQLite database itself: synchronous, one connection, owned by the store's thread
(`store.py`).

Transcripts are written in batches, one transaction each, in WAL mode, so a server killed at any moment
leaves every batch it committed; then the database is pruned to its bounds (age, then total size, oldest
first; a transcript being written by an open session is held, never pruned). The folder is the user's
alone (0700) and so is the file (0600).

An entry is written whole when it is new or changed, but a message that only grew is written as the
text it gained, a row of `pieces` its reading joins to the entry's text: a streamed answer costs each
write what arrived since the last, not its whole text again. A transcript's size is kept up to date by
each write's difference, never summed again over its entries.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from webclient.domain.kept.entries import KeptEntry, KeptSummary, KeptTranscript

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
        private_folder(folder)
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


def private_folder(folder: Path) -> None:
    """The folder exists and only its user may enter it (the state folder above it too, if we make it)."""
    folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.mkdir(mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)
