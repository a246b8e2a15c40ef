"""The session's working directory: every file the agent lists or reads is confined to it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from .markdown import code

__all__ = [
    "FileText",
    "Listing",
    "Workspace",
    "WorkspaceError",
]

LISTING_LIMIT = 200
# Directories nobody wants listed; everything starting with "." (.git, .venv, ...) is skipped as well.
SKIPPED_NAMES = frozenset({".git", ".venv", "__pycache__", "node_modules"})
_BINARY_SNIFF_BYTES = 8192


class WorkspaceError(Exception):
    """A request the workspace refuses; ``str(error)`` is a sentence fit to show the user."""


@dataclass(frozen=True, slots=True)
class Listing:
    """The visible entries of one directory, directories first, capped at ``LISTING_LIMIT``."""

    directory: Path
    entries: tuple[Path, ...]
    directories: frozenset[Path]
    total: int

    @property
    def hidden_by_cap(self) -> int:
        return self.total - len(self.entries)


@dataclass(frozen=True, slots=True)
class FileText:
    """The start of a text file: ``text`` holds at most the requested bytes, cut at a line end."""

    path: Path
    text: str
    size: int
    truncated: bool


class Workspace:
    """Lists and reads files under ``root`` and nowhere else (``..``, absolute paths, symlink escapes)."""

    def __init__(self, root: str | Path) -> None:
        # Resolve once so a workspace reached through a symlink still contains its own files.
        self.root = Path(root).resolve()

    def resolve(self, reference: str) -> Path:
        """Turn a relative path, an absolute path or a ``file://`` URI into a real path inside the root.

        Raises WorkspaceError when it points outside the workspace, including through a symlink.
        """
        lexical = self._lexical_path(reference)
        real = lexical.resolve()
        if real == self.root or real.is_relative_to(self.root):
            return real
        inside_by_name = Path(os.path.normpath(lexical)).is_relative_to(self.root)
        why = "it is a symbolic link that leads" if inside_by_name else "it is"
        raise WorkspaceError(
            f"I can't open {code(reference)}: {why} outside the workspace ({code(self.root.name)}), "
            "and I only read files inside it."
        )

    def relative(self, path: Path) -> str:
        """The workspace-relative POSIX name of a path inside the root ("." for the root itself)."""
        return path.relative_to(self.root).as_posix() if path != self.root else "."

    def list_dir(self, reference: str = ".", limit: int = LISTING_LIMIT) -> Listing:
        """The directory's entries without hidden and tool directories, directories first."""
        directory = self.resolve(reference or ".")
        if not directory.exists():
            raise WorkspaceError(f"There is no directory {code(reference)} in the workspace.")
        if not directory.is_dir():
            raise WorkspaceError(
                f"{code(reference)} is a file, not a directory; try {code('show ' + reference)}."
            )
        try:
            children = [child for child in directory.iterdir() if is_listed(child.name)]
        except OSError as exc:
            raise WorkspaceError(f"I can't list {code(reference)}: {exc.strerror or exc}.") from exc
        dirs = frozenset(child for child in children if child.is_dir())
        children.sort(key=lambda child: (child not in dirs, child.name.casefold(), child.name))
        return Listing(directory, tuple(children[:limit]), dirs, len(children))

    def read_text(self, reference: str, limit_bytes: int) -> FileText:
        """Read up to ``limit_bytes`` of a UTF-8 text file; binary files raise WorkspaceError."""
        path = self._existing_file(reference)
        try:
            with path.open("rb") as handle:
                data = handle.read(limit_bytes + 1)
            size = path.stat().st_size
        except OSError as exc:
            raise WorkspaceError(f"I can't read {code(reference)}: {exc.strerror or exc}.") from exc
        truncated = len(data) > limit_bytes
        text = _decode_text(data[:limit_bytes], truncated)
        if text is None:
            raise WorkspaceError(
                f"{code(self.relative(path))} looks like a binary file ({size} bytes); "
                "I only show text files."
            )
        if truncated and "\n" in text:
            text = text[: text.rindex("\n") + 1]  # never end a preview half-way through a line
        return FileText(path, text, size, truncated)

    def _existing_file(self, reference: str) -> Path:
        path = self.resolve(reference)
        if not path.exists():
            raise WorkspaceError(f"There is no file {code(reference)} in the workspace.")
        if path.is_dir():
            raise WorkspaceError(f"{code(reference)} is a directory; try {code('ls ' + reference)}.")
        return path

    def _lexical_path(self, reference: str) -> Path:
        if "://" in reference:
            return _path_from_uri(reference)
        path = Path(reference).expanduser()
        return path if path.is_absolute() else self.root / path


def is_listed(name: str) -> bool:
    """Whether a directory entry shows up in listings (hidden and tool directories do not)."""
    return not name.startswith(".") and name not in SKIPPED_NAMES


def _path_from_uri(uri: str) -> Path:
    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        raise WorkspaceError(f"{code(uri)} is not a local file URI; I can only open files in the workspace.")
    return Path(unquote(parsed.path))


def _decode_text(data: bytes, truncated: bool) -> str | None:
    if b"\0" in data[:_BINARY_SNIFF_BYTES]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A cut can split one multi-byte character at the very end; anything else is not UTF-8 text.
        if truncated and exc.start >= len(data) - 3:
            return data[: exc.start].decode("utf-8")
        return None
