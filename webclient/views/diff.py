"""Unified diffs of a tool call's ``diff`` content, as typed lines a template can colour. Pure.

A diff is bounded and computed once: `diff_view` diffs only sides of at most `MAX_SIDE_LINES` lines and
`MAX_SIDE_CHARS` characters (difflib is super-linear on repeated lines: 100,000 short lines took 28 s,
at every render), and keeps the last few diffs it computed (a page load, each tab's snapshot and every
refresh of a card render the same change again). Past the bound, the card shows each side's size with its
first and last lines, and offers the whole text as a download (`text_key` names it, `find_text` finds it).
"""

from __future__ import annotations

import difflib
import functools
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "DiffLine",
    "DiffView",
    "LineKind",
    "TextSide",
    "diff_view",
    "find_text",
    "patch_lines",
    "patch_view",
    "text_key",
    "unified",
]

LineKind = Literal["add", "del", "ctx", "hunk", "file"]
CONTEXT_LINES = 3
MAX_SIDE_CHARS = 256 * 1024
MAX_SIDE_LINES = 2000
EDGE_LINES = 5  # first and last lines shown of a side too big to diff
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


@dataclass(frozen=True, slots=True)
class TextSide:
    """One side of a change too big to show as a diff: its size, its first and last lines, its key."""

    label: str  # "before", "after" or "patch"
    chars: int
    lines: int
    head: tuple[str, ...]
    tail: tuple[str, ...]
    key: str  # names the text for its download

    @property
    def size(self) -> str:
        return f"{self.chars / 1024:,.0f} KiB" if self.chars >= 1024 else f"{self.chars} characters"


@dataclass(frozen=True, slots=True)
class DiffView:
    """What a diff shows: its lines, or (for a change past the bound) the sides it could not diff."""

    lines: tuple[DiffLine, ...] = ()
    sides: tuple[TextSide, ...] = ()


def diff_view(path: str, old_text: str | None, new_text: str) -> DiffView:
    """The bounded, cached diff of one change (see the module's docstring)."""
    if _small(old_text or "") and _small(new_text):
        return DiffView(lines=_cached_unified(path, old_text, new_text))
    sides = [] if old_text is None else [_side("before", old_text)]
    return DiffView(sides=(*sides, _side("after", new_text)))


def patch_view(patch: str) -> DiffView:
    """A v2 git patch as `patch_lines`, or past the bound its size and first and last lines."""
    if _small(patch):
        return DiffView(lines=tuple(patch_lines(patch)))
    return DiffView(sides=(_side("patch", patch),))


def text_key(text: str) -> str:
    """A short name for a text, from its length and its two ends (cheap for any size)."""
    edges = f"{len(text)}:{text[:4096]}:{text[-4096:]}".encode("utf-8", "replace")
    return hashlib.blake2b(edges, digest_size=12).hexdigest()


def find_text(texts: Iterable[str | None], key: str) -> str | None:
    """The first of `texts` that `key` names."""
    for text in texts:
        if text is not None and text_key(text) == key:
            return text
    return None


def _small(text: str) -> bool:
    # len() first: the count is only ever made of a text already known to be short.
    return len(text) <= MAX_SIDE_CHARS and text.count("\n") <= MAX_SIDE_LINES


@functools.lru_cache(maxsize=32)  # holds at most 32 changes within the bound: 16 MiB at the very most
def _cached_unified(path: str, old_text: str | None, new_text: str) -> tuple[DiffLine, ...]:
    return tuple(unified(path, old_text, new_text))


def _side(label: str, text: str) -> TextSide:
    head = text[: 200 * EDGE_LINES].splitlines()[:EDGE_LINES]
    tail = text[-200 * EDGE_LINES :].splitlines()[-EDGE_LINES:] if text.count("\n") > EDGE_LINES else []
    return TextSide(
        label=label,
        chars=len(text),
        lines=text.count("\n") + (0 if text.endswith("\n") else 1),
        head=tuple(line[:200] for line in head),
        tail=tuple(line[:200] for line in tail),
        key=text_key(text),
    )
