"""Which ACP version each agent command answered, remembered across server starts.

Offered v2, an agent that speaks only v1 has to be started a second time (see `negotiate`); remembering
its answer in the user's state folder means only the very first start ever pays. An entry is dropped when
the agent, started with v1, names another version of itself than the one that answered, so that an
agent upgraded to v2 is offered v2 again. A file that cannot be read or written costs only that: a
second start, never a failed one.

Entries are keyed by a SHA-256 digest of the agent's command line or URL, never by the text itself: a
command line can carry a secret in an argument, and a remote agent's URL a token in its query, and this
file would otherwise keep them on disk.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

FILE_NAME = "protocol-versions.json"


class VersionMemory:
    """The answers kept in `<state_dir>/protocol-versions.json`: agent command -> version and the agent's
    name and version as it gave them. `None` as the folder remembers nothing."""

    def __init__(self, state_dir: Path | None) -> None:
        self.path = state_dir / FILE_NAME if state_dir is not None else None

    @staticmethod
    def entry_key(key: str) -> str:
        """The name of `key`'s entry in the file: a digest, so that the file holds no command or URL."""
        return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()

    def answered(self, key: str) -> tuple[int, str] | None:
        """The version `key` answered last, and who answered (name and version), if remembered."""
        entry = self._read().get(self.entry_key(key))
        if isinstance(entry, dict) and entry.get("version") in (1, 2) and isinstance(entry.get("agent"), str):
            return entry["version"], entry["agent"]
        return None

    def remember(self, key: str, version: int, agent: str) -> None:
        self._write({**self._read(), self.entry_key(key): {"version": version, "agent": agent}})

    def forget(self, key: str) -> None:
        entries = self._read()
        if entries.pop(self.entry_key(key), None) is not None:
            self._write(entries)

    def _read(self) -> dict[str, Any]:
        if self.path is None:
            return {}
        try:
            entries = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("ignoring %s, which cannot be read: %s", self.path, exc)
            return {}
        return entries if isinstance(entries, dict) else {}

    def _write(self, entries: dict[str, Any]) -> None:
        if self.path is None:
            return
        temporary = self.path.with_suffix(".tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_text(json.dumps(entries, indent=1, sort_keys=True), encoding="utf-8")
            os.replace(temporary, self.path)  # whole or not at all, even with two servers writing
        except OSError as exc:
            log.warning("could not remember the agent's protocol version in %s: %s", self.path, exc)
            with contextlib.suppress(OSError):
                temporary.unlink()
