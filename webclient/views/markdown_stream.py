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

    `start` must be 0 or a value this function returned for a prefix of `text`. A growing answer is
    better scanned with one `BlockScanner`, which resumes at the line it stopped at.
    """
    scanner = BlockScanner()
    scanner.pos = scanner.end = start
    return scanner.advance(text)


class BlockScanner:
    """Finds where the finished blocks of a growing text end, reading each complete line once.

    Feed it the same text as it grows (each call's text starting with the last one's): a chunk costs the
    lines it completed, however long the open block (a code block of thousands of lines) already is.
    """

    def __init__(self) -> None:
        self.pos = 0  # the start of the first line not read yet
        self.end = 0  # where the finished blocks end, as of the complete lines read
        self.fence: str | None = None  # the opening fence, while inside a fenced code block
        self._blank_before = False

    def advance(self, text: str) -> int:
        """Read the lines `text` completed since the last call; return where its finished blocks end."""
        pos, fence, blank_before, end = self.pos, self.fence, self._blank_before, self.end
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
        self.pos, self.fence, self._blank_before, self.end = pos, fence, blank_before, end
        # The line still being written starts a new block too, once its first character rules out a list
        # item (a digit or a bullet could still continue the list above) and an indented continuation.
        if fence is None and blank_before and pos < len(text) and _starts_a_block(text[pos]):
            return pos
        return end


def _starts_a_block(first: str) -> bool:
    return not first.isspace() and first not in "-*+0123456789"


def _closes(line: str, fence: str) -> bool:
    closer = _FENCE.match(line)
    if closer is None:
        return False
    run = closer.group(1)
    return run[0] == fence[0] and len(run) >= len(fence) and not line[closer.end() :].strip()


def answer_text(entry: Item) -> str | None:
    """The text of an agent message or thought that is all text (streamed, unless it has a reference
    definition: `streamed_text`)."""
    if not isinstance(entry, MessageItem) or entry.role == "user" or len(entry.parts) != 1:
        return None
    part = entry.parts[0]
    return part.text if isinstance(part, TextPart) else None


def streamed_text(entry: Item) -> str | None:
    """The text of an entry shown as streamed Markdown (an agent message or thought that is all text)."""
    text = answer_text(entry)
    return None if text is None or ReferenceWatch().found(text) else text


class ReferenceWatch:
    """Whether a growing text has a reference definition, reading each appended piece once."""

    def __init__(self) -> None:
        self._text = ""
        self._found = False

    def found(self, text: str) -> bool:
        if not text.startswith(self._text):  # replaced, not grown: read it all again
            self._text, self._found = "", False
        # A definition's `]:` may straddle the old end by one character.
        at = max(0, len(self._text) - 1)
        self._text = text
        while not self._found and (at := text.find("]:", at)) >= 0:
            line = text.rfind("\n", 0, at) + 1
            self._found = _REFERENCE_DEFINITION.match(text, line) is not None
            at += 2
        return self._found


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
