"""The client side of ``fs/read_text_file`` and ``fs/write_text_file``: files inside the session's roots only.

Pure apart from file I/O: no FastAPI, no HTML. Every path is resolved (symlinks included) before it is
checked, so ``..`` segments and symbolic links that lead out of the roots are refused, never followed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "MAX_FILE_BYTES",
    "FileAccess",
    "FileAccessDenied",
    "FileAccessError",
    "FileMissing",
    "FileNotText",
    "FileTooLarge",
    "WriteResult",
]

MAX_FILE_BYTES = 10 * 1024 * 1024


class FileAccessError(Exception):
    """A file request the client refuses; ``str(error)`` names the path and says why."""


class FileAccessDenied(FileAccessError, ValueError):
    """The path is relative, or resolves outside every root."""


class FileMissing(FileAccessError, FileNotFoundError):
    """There is no file to read at the path (or it is a directory)."""


class FileTooLarge(FileAccessError):
    """The file, or the content to write, is larger than the cap."""


class FileNotText(FileAccessError, ValueError):
    """The file is not UTF-8 text."""


@dataclass(frozen=True, slots=True)
class WriteResult:
    """What a write changed: ``old_text`` is None when the file did not exist before."""

    path: str
    old_text: str | None
    new_text: str


class FileAccess:
    """Reads and writes UTF-8 text files inside ``roots`` (the session's cwd and additional directories)."""

    def __init__(self, roots: Sequence[Path], *, max_bytes: int = MAX_FILE_BYTES) -> None:
        self.roots = tuple(Path(os.path.realpath(root)) for root in roots)
        self.max_bytes = max_bytes

    def resolve(self, path: str) -> Path:
        """The real path of ``path`` (absolute, symlinks resolved), if it lies inside a root."""
        if "\0" in path or not os.path.isabs(path):
            raise FileAccessDenied(f"{path!r} is not an absolute path; only absolute paths are accepted")
        real = Path(os.path.realpath(path))
        if not any(real == root or real.is_relative_to(root) for root in self.roots):
            raise FileAccessDenied(f"{path!r} is outside the session's directories")
        return real

    def read_text(self, path: str, line: int | None = None, limit: int | None = None) -> str:
        """The file's text from 1-based ``line`` (default 1), at most ``limit`` lines (default all)."""
        real = self.resolve(path)
        text = self._read_existing(real, path)
        if text is None:
            raise FileMissing(f"{path!r} does not exist")
        if line is None and limit is None:
            return text
        lines = text.splitlines(keepends=True)
        start = max((line or 1) - 1, 0)
        end = len(lines) if limit is None else start + max(limit, 0)
        return "".join(lines[start:end])

    def write_text(self, path: str, content: str) -> WriteResult:
        """Replace (or create) the file with ``content``; parent directories are created inside the roots."""
        real = self.resolve(path)
        data = content.encode("utf-8")
        if len(data) > self.max_bytes:
            raise FileTooLarge(f"{path!r}: {len(data)} bytes to write is more than {self.max_bytes}")
        old_text = self._read_existing(real, path)
        try:
            real.parent.mkdir(parents=True, exist_ok=True)
            # A directory created meanwhile could be a symlink planted by someone else: check again.
            real = self.resolve(str(real))
            real.write_bytes(data)
        except FileAccessError:
            raise
        except OSError as exc:
            raise FileAccessError(f"{path!r} could not be written: {exc.strerror or exc}") from exc
        return WriteResult(path, old_text, content)

    def _read_existing(self, real: Path, path: str) -> str | None:
        """The file's text, or None when nothing exists there."""
        if not real.exists():
            return None
        if real.is_dir():
            raise FileMissing(f"{path!r} is a directory, not a file")
        try:
            size = real.stat().st_size
            if size > self.max_bytes:
                raise FileTooLarge(f"{path!r} is {size} bytes, more than the {self.max_bytes} allowed")
            data = real.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise FileAccessError(f"{path!r} could not be read: {exc.strerror or exc}") from exc
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise FileNotText(f"{path!r} is not UTF-8 text (byte {exc.start})") from exc
