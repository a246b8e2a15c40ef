"""Where the checked agent works: a throwaway copy of the workspace, and the answers to its requests.

The agent's file reads and writes are served inside the copy only (a path outside it is refused), with
the server's own limits (`domain.files`: regular files only, so a FIFO or a device is refused instead of
blocking; at most `MAX_FILE_BYTES` read or written); its terminals are refused, and its permission
requests get the configured default. Nothing the agent does during a check reaches the user's own files.
The recorder runs reads and writes in a worker thread, so a slow one never holds the step's deadline.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from webclient.acp.models import PermissionOutcome, PermissionRequest
from webclient.domain.files import FileAccess, FileAccessError, FileMissing
from webclient.errors import RequestRefused

# Never copied: version control, environments and dependency trees (big, and nothing a prompt needs).
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".tox"})
# The copy stops growing here; the files past it are left out (the report says how many).
MAX_COPY_BYTES = 64 * 1024 * 1024


class Sandbox:
    """A temporary copy of `workspace` (without `SKIPPED_DIRS`, at most `MAX_COPY_BYTES`); `close`
    removes it. `allow`: permission requests get an allowing option instead of a rejecting one."""

    def __init__(self, workspace: Path, *, allow: bool = False) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="webclient-check-")
        self.root = Path(self._tmp.name).resolve()
        self.cwd = self.root / "workspace"
        self.state = self.root / "state"  # for an agent we know keeps its state under a directory we pick
        self.state.mkdir()
        self.allow = allow
        self.left_out = _copy(workspace, self.cwd)
        self.files = FileAccess([self.cwd])

    def close(self) -> None:
        self._tmp.cleanup()

    def resolve(self, path: str) -> Path:
        """`path` (absolute, or relative to the copy) inside the copy; RequestRefused outside it."""
        target = (self.cwd / path).resolve()
        if target != self.cwd and self.cwd not in target.parents:
            raise RequestRefused(
                RequestRefused.RESOURCE_NOT_FOUND, f"{path} is outside the workspace this check serves"
            )
        return target

    def read(self, path: str, line: int | None, limit: int | None) -> str:
        """Lines of a regular text file in the copy, within the server's size cap; RequestRefused else."""
        target = self.resolve(path)
        try:
            return self.files.read_text(str(target), line, limit)
        except FileMissing as exc:
            raise RequestRefused(RequestRefused.RESOURCE_NOT_FOUND, str(exc)) from None
        except FileAccessError as exc:
            raise RequestRefused(RequestRefused.INVALID_PARAMS, str(exc)) from None

    def write(self, path: str, content: str) -> None:
        target = self.resolve(path)
        try:
            self.files.write_text(str(target), content)
        except FileAccessError as exc:
            raise RequestRefused(RequestRefused.INVALID_PARAMS, f"cannot write {path}: {exc}") from None

    def permission(self, request: PermissionRequest) -> PermissionOutcome:
        """The configured default: an allowing option with `allow`, else a rejecting one (or cancelled)."""
        wanted = [o for o in request.options if o.rejects != self.allow]
        once = [o for o in wanted if (o.kind or "").endswith("_once")]
        chosen = (once or wanted)[:1]
        return PermissionOutcome(option_id=chosen[0].id if chosen else None)


def _copy(source: Path, target: Path) -> int:
    """Copy `source` to `target`; returns how many files were left out for the size cap."""
    target.mkdir(parents=True)
    budget = MAX_COPY_BYTES
    left_out = 0
    for folder, dirs, files in os.walk(source):  # pruned in place: skipped trees are never walked
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not (Path(folder) / d).is_symlink())
        here = target / Path(folder).relative_to(source)
        here.mkdir(parents=True, exist_ok=True)
        for name in sorted(files):
            path = Path(folder) / name
            try:
                size = path.stat().st_size
                if path.is_symlink() or size > budget:
                    left_out += not path.is_symlink()
                    continue
                shutil.copyfile(path, here / name)
                budget -= size
            except OSError:
                left_out += 1
    return left_out
