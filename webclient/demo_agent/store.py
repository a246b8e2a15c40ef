"""Session persistence: one JSON file per session in the state directory, so load works after a restart."""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from .blocks import JsonDict

__all__ = ["HistoryEntry", "SessionRecord", "SessionStore"]

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
TITLE_LENGTH = 60
# Session ids become file names: accept only what `new` makes, so a client-supplied id can't leave the dir.
_SESSION_ID = re.compile(r"sess_[0-9a-f]{32}")

Role = Literal["user", "agent"]


@dataclass(slots=True)
class HistoryEntry:
    """One message of the conversation: the user's prompt blocks, or the agent's reply as one text block."""

    role: Role
    message_id: str
    content: list[JsonDict]


@dataclass(slots=True)
class SessionRecord:
    session_id: str
    cwd: str
    updated_at: str
    title: str | None = None
    history: list[HistoryEntry] = field(default_factory=list)

    def append(self, role: Role, message_id: str, content: list[JsonDict]) -> None:
        """Add a message, naming the session after its first user text."""
        self.history.append(HistoryEntry(role, message_id, content))
        self.updated_at = _now()
        if self.title is None and role == "user":
            words = " ".join(" ".join(b["text"] for b in content if b.get("type") == "text").split())
            self.title = words[:TITLE_LENGTH] or None


class SessionStore:
    """Reads and writes SessionRecords under ``directory`` (created on first write)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def create(self, cwd: str) -> SessionRecord:
        """A new session's record, not yet written: it is saved with its first exchange, so a session
        nobody sent a prompt to is never stored, never listed and never loaded."""
        return SessionRecord(session_id=f"sess_{uuid.uuid4().hex}", cwd=cwd, updated_at=_now())

    def load(self, session_id: str) -> SessionRecord | None:
        """The stored session, or None when the id is unknown, malformed or its file is unreadable."""
        if not _SESSION_ID.fullmatch(session_id):
            return None
        return self._read(self._path(session_id))

    def save(self, record: SessionRecord) -> None:
        """Write atomically (temp file + rename) so a crash never leaves half a session behind."""
        self.directory.mkdir(parents=True, exist_ok=True)
        payload = json.dumps(_to_json(record), ensure_ascii=False, indent=1)
        fd, temp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(payload)
            os.replace(temp, self._path(record.session_id))
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise

    def delete(self, session_id: str) -> bool:
        """Remove a stored session; False when there was none (or the id is not one of ours)."""
        if not _SESSION_ID.fullmatch(session_id):
            return False
        try:
            self._path(session_id).unlink()
        except FileNotFoundError:
            return False
        return True

    def all(self) -> list[SessionRecord]:
        """Every readable stored session, most recently updated first."""
        if not self.directory.is_dir():
            return []
        records = [self._read(path) for path in self.directory.glob("sess_*.json")]
        return sorted((r for r in records if r is not None), key=lambda r: r.updated_at, reverse=True)

    def _path(self, session_id: str) -> Path:
        return self.directory / f"{session_id}.json"

    def _read(self, path: Path) -> SessionRecord | None:
        try:
            return _from_json(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("skipping unreadable session file %s: %s", path, exc)
            return None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _to_json(record: SessionRecord) -> dict[str, Any]:
    return {
        "version": FORMAT_VERSION,
        "sessionId": record.session_id,
        "cwd": record.cwd,
        "title": record.title,
        "updatedAt": record.updated_at,
        "history": [
            {"role": e.role, "messageId": e.message_id, "content": e.content} for e in record.history
        ],
    }


def _from_json(data: dict[str, Any]) -> SessionRecord:
    history = [HistoryEntry(e["role"], e["messageId"], list(e["content"])) for e in data["history"]]
    return SessionRecord(data["sessionId"], data["cwd"], data["updatedAt"], data.get("title"), history)
