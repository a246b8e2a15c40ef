"""A presentation study's events: one row per event, in one SQLite file in the user's state folder.

Only a running study writes here, and only what its consenting participants' pages did with the lists of
suggestions they were shown; nothing of it goes to the agent. The folder is the user's alone (0700) and so
is the file (0600), as for the kept transcripts. Rows are written and read in short transactions; the web
layer calls this on a worker thread.

The columns are the exchange format too (CSV and JSON downloads, and their import): `COLUMNS`, in order.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

FOLDER_NAME = "studies"
FILE_NAME = "studies.sqlite3"
COLUMNS = (
    "study",
    "participant",
    "session",
    "preset",
    "list",
    "event",
    "rank",
    "elapsed_ms",
    "edit_distance",
)
EVENTS = (
    "shown",
    "sent",
    "edited",
    "dismissed",
    "typed_own",
    "auto_sent",
    "auto_cancelled",
    "more_opened",
    "opened",
)
# Events about one suggestion carry its rank (1: the agent's first); the others carry none.
RANKED = frozenset({"sent", "edited", "auto_sent", "opened"})
SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY, study TEXT NOT NULL, participant TEXT NOT NULL, session TEXT NOT NULL,
    preset TEXT NOT NULL, list INTEGER NOT NULL, event TEXT NOT NULL, rank INTEGER,
    elapsed_ms INTEGER NOT NULL, edit_distance INTEGER);
CREATE INDEX IF NOT EXISTS events_by_study ON events (study, id);
"""
MAX_TEXT = 64  # characters of an id (study, participant, session, preset)


class BadEvent(ValueError):
    """A row that is not a study event; the text says which field and why."""


@dataclass(frozen=True)
class StudyEvent:
    """One thing a participant's page did with a list of suggestions."""

    study: str
    participant: str
    session: str
    preset: str
    list: int  # the list's generation in its session
    event: str
    rank: int | None  # the suggestion's place in the list, 1 first (events about one suggestion)
    elapsed_ms: int  # since the list was shown
    edit_distance: int | None = None  # for `edited`: characters changed before it was sent

    def row(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in COLUMNS)


def checked(raw: dict[str, Any]) -> StudyEvent:
    """A `StudyEvent` from a mapping of its columns (strings as CSV has them, or JSON values); raises
    `BadEvent` naming the field."""
    missing = [name for name in COLUMNS if name not in raw]
    if missing:
        raise BadEvent(f"{missing[0]}: missing")
    fields: dict[str, Any] = {}
    for name in ("study", "participant", "session", "preset", "event"):
        value = raw[name]
        if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT:
            raise BadEvent(f"{name}: a text of 1 to {MAX_TEXT} characters, not {value!r}")
        fields[name] = value
    if fields["event"] not in EVENTS:
        raise BadEvent(f"event: one of {', '.join(EVENTS)}, not {fields['event']!r}")
    fields["list"] = _number(raw["list"], "list", optional=False)
    fields["elapsed_ms"] = _number(raw["elapsed_ms"], "elapsed_ms", optional=False)
    fields["rank"] = _number(raw["rank"], "rank", optional=True)
    fields["edit_distance"] = _number(raw["edit_distance"], "edit_distance", optional=True)
    if (fields["rank"] is not None) != (fields["event"] in RANKED):
        wanted = "a rank" if fields["event"] in RANKED else "no rank"
        raise BadEvent(f"rank: a {fields['event']} event has {wanted}")
    if fields["rank"] is not None and fields["rank"] < 1:
        raise BadEvent("rank: 1 or more")
    if fields["edit_distance"] is not None and fields["event"] != "edited":
        raise BadEvent("edit_distance: only an edited event has one")
    return StudyEvent(**fields)


def _number(value: Any, name: str, *, optional: bool) -> int | None:
    if value is None or value == "":
        if optional:
            return None
        raise BadEvent(f"{name}: missing")
    if isinstance(value, bool):
        raise BadEvent(f"{name}: a whole number, not {value!r}")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise BadEvent(f"{name}: a whole number, not {value!r}") from None
    if number < 0 or number != float(value):
        raise BadEvent(f"{name}: a whole number of 0 or more, not {value!r}")
    return number


class StudyLog:
    """The events file in `folder` (created user-only), safe to use from any one thread at a time."""

    def __init__(self, folder: Path) -> None:
        folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        folder.mkdir(mode=0o700, exist_ok=True)
        os.chmod(folder, 0o700)
        self.path = folder / FILE_NAME
        os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        os.chmod(self.path, 0o600)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(SCHEMA)

    def add(self, events: Sequence[StudyEvent]) -> None:
        """Write `events`, all or none."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.executemany(
                    f"INSERT INTO events ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
                    [e.row() for e in events],
                )
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def events(self, study: str) -> list[StudyEvent]:
        """Every event of `study`, in the order written."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {', '.join(COLUMNS)} FROM events WHERE study = ? ORDER BY id", (study,)
            ).fetchall()
        return [StudyEvent(*row) for row in rows]

    def assignments(self, study: str) -> dict[str, str]:
        """The preset each participant of `study` was shown, in the order they joined."""
        with self._lock:
            rows = self._db.execute(
                "SELECT participant, preset FROM events WHERE study = ?"
                " GROUP BY participant ORDER BY MIN(id)",
                (study,),
            ).fetchall()
        return {str(participant): str(preset) for participant, preset in rows}

    def studies(self) -> list[tuple[str, int, int]]:
        """Each study with events: its name, its participants and its events, by name."""
        with self._lock:
            rows = self._db.execute(
                "SELECT study, COUNT(DISTINCT participant), COUNT(*) FROM events"
                " GROUP BY study ORDER BY study"
            ).fetchall()
        return [(str(name), int(people), int(count)) for name, people, count in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()


# --- the exchange format ---------------------------------------------------------------------------------


def to_csv(events: Iterable[StudyEvent]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for event in events:
        writer.writerow("" if value is None else value for value in event.row())
    return out.getvalue()


def to_json(events: Iterable[StudyEvent]) -> str:
    return json.dumps({"columns": list(COLUMNS), "events": [asdict(e) for e in events]}, indent=1) + "\n"


def from_file(text: str, study: str) -> list[StudyEvent]:
    """The events of a CSV or JSON download, all of study `study`; raises `BadEvent` with the reason
    (another header, another study, a bad row and its line or place)."""
    stripped = text.lstrip("\ufeff").lstrip()
    rows = _json_rows(stripped) if stripped.startswith("{") else _csv_rows(stripped)
    events = []
    for where, raw in rows:
        try:
            event = checked(raw)
        except BadEvent as exc:
            raise BadEvent(f"{where}: {exc}") from None
        if event.study != study:
            raise BadEvent(f"{where}: the event is of study {event.study!r}, not {study!r}")
        events.append(event)
    return events


def _csv_rows(text: str) -> list[tuple[str, dict[str, Any]]]:
    lines = text.splitlines()
    if not lines or tuple(c.strip() for c in next(csv.reader(lines[:1]))) != COLUMNS:
        raise BadEvent(f"not a study download: the first line must be {','.join(COLUMNS)}")
    rows = []
    for number, values in enumerate(csv.reader(lines[1:]), 2):
        if not values:
            continue
        if len(values) != len(COLUMNS):
            raise BadEvent(f"line {number}: {len(values)} values, not {len(COLUMNS)}")
        rows.append((f"line {number}", dict(zip(COLUMNS, values, strict=True))))
    return rows


def _json_rows(text: str) -> list[tuple[str, dict[str, Any]]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadEvent(f"not JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, dict) or tuple(data.get("columns") or ()) != COLUMNS:
        raise BadEvent(f"not a study download: its columns must be {','.join(COLUMNS)}")
    events = data.get("events")
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        raise BadEvent("not a study download: events must be a list of objects")
    return [(f"event {n}", e) for n, e in enumerate(events, 1)]
