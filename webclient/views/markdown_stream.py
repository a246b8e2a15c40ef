"""Streaming Markdown: an answer's finished blocks are rendered and sent once, only its open tail per frame.

An answer grows by appending, and a Markdown block is final once a later block has begun. So an agent
message shows as two parts: the finished blocks, which a live tab is sent once each (appended), and the
open tail, which is re-rendered and replaced on every frame. The bytes sent for an answer then grow
linearly with its length instead of quadratically.

Where the finished part ends depends on the text alone (`finished_end`), so the full page, a new tab's
snapshot and the live frames all split an answer in the same place, and rendering the finished part in
the pieces it arrived in gives the same HTML as rendering it at once: a split is only made before a line
that starts a new top-level block after a blank line (not a list item, which could continue a list; never
inside a fenced code block). Reference-style link definitions apply to the whole text, so an answer that
has one is rendered whole, as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markupsafe import Markup

from webclient.acp.models import TextPart
from webclient.domain.items import Item, MessageItem
from webclient.views.markdown import render_markdown

# A fence opener or closer: up to three spaces, then three or more backticks or tildes.
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
# A line that may continue the list before it (a blank line between items keeps one list).
_LIST_ITEM = re.compile(r"(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
# `[label]: destination`, which may give meaning to a link anywhere in the text.
_REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:", re.MULTILINE)


def finished_end(text: str, start: int = 0) -> int:
    """Where the finished blocks of `text` end (0: none is finished yet).

    `start` must be 0 or a value this function returned for a prefix of `text`: scanning resumes there,
    so a growing answer is scanned once in all, not once per frame.
    """
    end = start
    fence: str | None = None  # the opening fence, while inside a fenced code block
    blank_before = False
    pos = start
    while (newline := text.find("\n", pos)) >= 0:  # complete lines: the last one may still grow
        line = text[pos:newline]
        if fence is not None:
            fence = None if _closes(line, fence) else fence
        elif not line.strip():
            blank_before = True
        else:
            if blank_before and not line[0].isspace() and not _LIST_ITEM.match(line):
                end = pos
            blank_before = False
            opener = _FENCE.match(line)
            fence = opener.group(1) if opener else None
        pos = newline + 1
    # The line still being written starts a new block too, once its first character rules out a list
    # item (a digit or a bullet could still continue the list above) and an indented continuation.
    if fence is None and blank_before and pos < len(text) and _starts_a_block(text[pos]):
        end = pos
    return end


def _starts_a_block(first: str) -> bool:
    return not first.isspace() and first not in "-*+0123456789"


def _closes(line: str, fence: str) -> bool:
    closer = _FENCE.match(line)
    if closer is None:
        return False
    run = closer.group(1)
    return run[0] == fence[0] and len(run) >= len(fence) and not line[closer.end() :].strip()


def streamed_text(entry: Item) -> str | None:
    """The text of an entry shown as streamed Markdown (an agent message or thought that is all text)."""
    if not isinstance(entry, MessageItem) or entry.role == "user" or len(entry.parts) != 1:
        return None
    part = entry.parts[0]
    if not isinstance(part, TextPart) or _has_reference_definition(part.text):
        return None
    return part.text


def _has_reference_definition(text: str) -> bool:
    # The substring test is a fast C scan; the regex only runs when a definition is possible at all.
    return "]:" in text and _REFERENCE_DEFINITION.search(text) is not None


@dataclass(frozen=True)
class Split:
    """One streamed answer as HTML: its finished blocks and its open tail, and where the text splits."""

    done: Markup
    tail: Markup
    end: int


def split(text: str) -> Split:
    """The whole answer, split where `finished_end` says (for the full page and a snapshot)."""
    end = finished_end(text)
    return Split(done=render_markdown(text[:end]), tail=render_markdown(text[end:]), end=end)


@dataclass(frozen=True)
class Delta:
    """What a tab that has the finished blocks up to `start` needs: the newly finished ones and the tail."""

    added: Markup
    tail: Markup
    end: int


def delta(text: str, start: int) -> Delta:
    """Render only what changed since the finished part ended at `start`."""
    end = finished_end(text, start)
    added = render_markdown(text[start:end]) if end > start else Markup("")
    return Delta(added=added, tail=render_markdown(text[end:]), end=end)
