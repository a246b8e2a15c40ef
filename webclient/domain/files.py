"""The client side of ``fs/read_text_file`` and ``fs/write_text_file``: files inside the session's roots only.

Pure apart from file I/O: no FastAPI, no HTML. Every path is resolved (symlinks included) before it is
checked, so ``..`` segments and symbolic links that lead out of the roots are refused, never followed.

Only regular files are read or written: opening a FIFO blocks until someone writes to it, and a socket or
a device is no text file. Files are opened non-blocking and checked with ``fstat`` on the open descriptor,
so a path swapped for a FIFO between the check and the open is caught too. The methods block on disk
I/O; callers on an event loop use the ``*_async`` variants, which run them in a worker thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

__all__ = [
    "MAX_FILE_BYTES",
    "FileAccess",
    "FileAccessDenied",
    "FileAccessError",
    "FileMissing",
    "FileNotRegular",
    "FileNotText",
    "FileTooLarge",
    "WriteResult",
]

MAX_FILE_BYTES = 10 * 1024 * 1024
# Opened without following a final symlink (the path is already resolved) and without blocking on a FIFO.
_OPEN_FLAGS = os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
# A new file gets rw for everyone minus the umask, never an executable bit.
NEW_FILE_MODE = 0o666


class FileAccessError(Exception):
    """A file request the client refuses; ``str(error)`` names the path and says why."""


class FileAccessDenied(FileAccessError, ValueError):
    """The path is relative, or resolves outside every root."""


class FileMissing(FileAccessError, FileNotFoundError):
    """There is no file to read at the path (or it is a directory)."""


class FileTooLarge(FileAccessError):
    """The file, or the content to write, is larger than the cap."""


class _Absent(FileMissing):
    """Nothing exists at the path (as opposed to a directory there)."""


class FileNotRegular(FileAccessError, ValueError):
    """The path names a FIFO, a socket, a device or anything else that is not a regular file."""


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
        """The file's text from 1-based ``line`` (default 1), at most ``limit`` lines (default all).

        Lines end at ``\\n``. The cap applies to the text returned, after ``line`` and ``limit``: a
        slice of a large file can be read, a slice larger than ``max_bytes`` cannot.
        """
        real = self.resolve(path)
        start = max((line or 1) - 1, 0)
        return self._read(real, path, start, None if limit is None else max(limit, 0))

    async def read_text_async(self, path: str, line: int | None = None, limit: int | None = None) -> str:
        """`read_text` in a worker thread, so a slow disk never stalls the event loop."""
        return await asyncio.to_thread(self.read_text, path, line, limit)

    def write_text(self, path: str, content: str) -> WriteResult:
        """Replace (or create) the file with ``content``; parent directories are created inside the roots.

        Atomic: the text goes to a new file beside the target, is synced to disk, and then renamed over
        it, so a write that fails part-way (a full disk) leaves the original exactly as it was, and
        raises. An existing file keeps its mode; a new one is created without any executable bit.
        """
        real = self.resolve(path)
        data = content.encode("utf-8")
        if len(data) > self.max_bytes:
            raise FileTooLarge(f"{path!r}: {len(data)} bytes to write is more than {self.max_bytes}")
        old_text = self._read_existing(real, path)
        try:
            real.parent.mkdir(parents=True, exist_ok=True)
            # A directory created meanwhile could be a symlink planted by someone else: check again.
            real = self.resolve(str(real))
            mode = _existing_mode(real, path)
            temporary = real.with_name(f".{real.name}.{secrets.token_hex(6)}.webclient-tmp")
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _OPEN_FLAGS, NEW_FILE_MODE)
        except FileAccessError:
            raise
        except OSError as exc:
            raise self._open_error(path, exc, "written") from exc
        try:
            with os.fdopen(fd, "wb") as handle:
                os.set_blocking(fd, True)
                if mode is not None:
                    os.fchmod(fd, mode)
                handle.write(data)
                handle.flush()
                os.fsync(fd)
            os.replace(temporary, real)
        except OSError as exc:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise FileAccessError(
                f"{path!r} could not be written ({exc.strerror or exc}); the file was left as it was"
            ) from exc
        return WriteResult(path, old_text, content)

    async def write_text_async(self, path: str, content: str) -> WriteResult:
        """`write_text` in a worker thread, so a slow disk never stalls the event loop."""
        return await asyncio.to_thread(self.write_text, path, content)

    async def existing_text_async(self, path: str) -> str | None:
        """The whole text a write to ``path`` would replace (None: no file there), checked like a write."""
        return await asyncio.to_thread(lambda: self._read_existing(self.resolve(path), path))

    def _read_existing(self, real: Path, path: str) -> str | None:
        """The whole file's text, or None when nothing exists there."""
        try:
            return self._read(real, path, 0, None)
        except _Absent:
            return None
        except FileTooLarge:  # the read's advice (line and limit) does not apply to a write
            raise FileTooLarge(
                f"{path!r} is more than {self.max_bytes} bytes; it is not replaced, since the change "
                "could not be shown"
            ) from None

    def _read(self, real: Path, path: str, start: int, count: int | None) -> str:
        try:
            fd = os.open(real, os.O_RDONLY | _OPEN_FLAGS)
        except FileNotFoundError:
            raise _Absent(f"{path!r} does not exist") from None
        except OSError as exc:
            raise self._open_error(path, exc, "read") from exc
        self._check_open(fd, path)
        with os.fdopen(fd, "rb") as handle:
            try:
                data = self._read_lines(handle, path, start, count)
            except OSError as exc:
                raise FileAccessError(f"{path!r} could not be read: {exc.strerror or exc}") from exc
        return _decode(data, path)

    def _read_lines(self, handle: BinaryIO, path: str, start: int, count: int | None) -> bytes:
        """Lines ``start`` to ``start + count`` of the file, reading no more than the cap past ``start``.

        A line is read in pieces of at most ``max_bytes + 1``, so one endless line costs bounded memory.
        """
        kept: list[bytes] = []
        size = 0
        index = 0
        while count is None or index < start + count:
            piece = handle.readline(self.max_bytes + 1)
            if not piece:
                break
            if index >= start:
                size += len(piece)
                if size > self.max_bytes:
                    raise FileTooLarge(
                        f"{path!r}: the text asked for is more than the {self.max_bytes} bytes allowed; "
                        "ask for fewer lines with line and limit"
                    )
                kept.append(piece)
            if piece.endswith(b"\n"):
                index += 1
        return b"".join(kept)

    @staticmethod
    def _check_open(fd: int, path: str) -> None:
        """Close ``fd`` and refuse unless it is a regular file; else make it blocking for plain I/O."""
        mode = os.fstat(fd).st_mode
        if stat.S_ISREG(mode):
            os.set_blocking(fd, True)
            return
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise FileMissing(f"{path!r} is a directory, not a file")
        raise FileNotRegular(f"{path!r} is {_kind(mode)}, not a regular file; only regular files are used")

    @staticmethod
    def _open_error(path: str, exc: OSError, verb: str) -> FileAccessError:
        if exc.errno == errno.EISDIR:
            return FileMissing(f"{path!r} is a directory, not a file")
        if exc.errno == errno.ENXIO:  # a socket, or a FIFO with no reader opened for writing
            return FileNotRegular(f"{path!r} is not a regular file; only regular files are used")
        return FileAccessError(f"{path!r} could not be {verb}: {exc.strerror or exc}")


def _existing_mode(real: Path, path: str) -> int | None:
    """The permission bits of the file a write replaces (None: no file there); FileNotRegular for a
    FIFO, device or socket, which a write never replaces."""
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(info.st_mode):
        raise FileMissing(f"{path!r} is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise FileNotRegular(
            f"{path!r} is {_kind(info.st_mode)}, not a regular file; only regular files are used"
        )
    return stat.S_IMODE(info.st_mode)


def _decode(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileNotText(f"{path!r} is not UTF-8 text (byte {exc.start})") from exc


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a file"
