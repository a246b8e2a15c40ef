"""Unified diffs of a tool call's ``diff`` content, as typed lines a template can colour. Pure."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

__all__ = ["DiffLine", "LineKind", "patch_lines", "unified"]

LineKind = Literal["add", "del", "ctx", "hunk", "file"]
CONTEXT_LINES = 3
_PREFIX_KINDS: dict[str, LineKind] = {"+": "add", "-": "del", " ": "ctx", "@": "hunk"}


@dataclass(frozen=True, slots=True)
class DiffLine:
    """One line of a unified diff, with its ``+``/``-``/`` `` prefix kept in ``text``."""

    kind: LineKind
    text: str


def unified(path: str, old_text: str | None, new_text: str, context: int = CONTEXT_LINES) -> list[DiffLine]:
    """The unified diff from ``old_text`` (None: a new file) to ``new_text``.

    Always starts with the two ``file`` header lines; no hunk follows when nothing changed.
    """
    headers = [
        DiffLine("file", f"--- {'/dev/null' if old_text is None else path}"),
        DiffLine("file", f"+++ {path}"),
    ]
    old_lines = (old_text or "").splitlines()
    body = list(difflib.unified_diff(old_lines, new_text.splitlines(), n=context, lineterm=""))
    # difflib's own two header lines come first; a removed "-- x" looks like one: skip by position.
    return headers + [DiffLine(_PREFIX_KINDS.get(line[:1], "ctx"), line) for line in body[2:]]


_PATCH_HEADERS = (
    "diff --git",
    "index ",
    "--- ",
    "+++ ",
    "new file mode",
    "deleted file mode",
    "similarity",
    "rename from",
    "rename to",
    "old mode",
    "new mode",
    "Binary files",
)


def patch_lines(patch: str) -> list[DiffLine]:
    """A git patch an agent sent (ACP v2's `git_patch`), its lines typed for colouring as they are."""
    lines = []
    for line in patch.splitlines():
        if line.startswith(_PATCH_HEADERS):
            lines.append(DiffLine("file", line))
        else:
            lines.append(DiffLine(_PREFIX_KINDS.get(line[:1], "ctx"), line))
    return lines
