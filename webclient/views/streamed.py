"""One streamed answer's live frames: what arrived is appended, the open block rendered at a bounded rate.

An answer shows as its finished blocks and its open tail (`markdown_stream.py`). The finished blocks are
rendered once each and appended. The open tail is re-rendered as Markdown on every frame only while it
is short; past `SHORT_TAIL` characters (one long paragraph, list, thought or fenced code block) each frame
appends what arrived to it as escaped raw text, and the tail is rendered as Markdown again at most every
`FORMAT_INTERVAL` (and never more than `1 / FORMAT_SHARE` of the time), and once more when its block
finishes. So a chunk costs the server and every tab work and bytes in proportion to the chunk, and the page
never shows worse than raw text that is formatted a moment later. Whatever a tab was sent, it ends with
the same markup the full page and a new tab's snapshot show: every raw stretch is replaced by a render of
the whole tail, which the owner of the stream (`LiveHub`) schedules for `format_due`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from markupsafe import Markup

from webclient.views import render
from webclient.views.markdown import render_markdown
from webclient.views.markdown_stream import BlockScanner, ReferenceWatch

# An open block this short is rendered as Markdown on every frame: it costs little, and an answer of
# ordinary paragraphs never shows raw text.
SHORT_TAIL = 2_000
# The least time between two Markdown renders of a long open block, and the least multiple of what the
# last render took: a huge block being written costs at most a twentieth of the server's time.
FORMAT_INTERVAL = 0.25
FORMAT_SHARE = 20


@dataclass
class Shown:
    """What one tab shows of one streamed answer."""

    done: int  # its finished blocks end here
    upto: int  # its tail shows the text up to here
    raw: bool = False  # some of its tail is raw text, not yet rendered as Markdown


class Stream:
    """One streamed answer, shared by every tab: where its blocks end (each line read once) and when its
    open block may be rendered again."""

    def __init__(self) -> None:
        self._text = ""
        self._scanner = BlockScanner()
        self.references = ReferenceWatch()  # an answer with a reference definition is shown whole
        self.format_due = 0.0  # the loop time from which a long tail may be rendered again

    def advance(self, text: str) -> tuple[int, bool]:
        """Where the finished blocks of `text` end, and whether `text` no longer continues the text seen
        before (an ACP v2 message whose content was replaced): then the tabs need the answer whole."""
        replaced = not text.startswith(self._text)
        if replaced:
            self._scanner = BlockScanner()
        self._text = text
        return self._scanner.advance(text), replaced

    def work(self, text: str, now: float) -> int:
        """What the next frame of `text` renders, in characters: what arrived, and the tail if its render
        may be due."""
        tail = len(text) - self._scanner.end
        due = tail <= SHORT_TAIL or now >= self.format_due
        return max(0, len(text) - len(self._text)) + (tail if due else 0)

    @property
    def in_code(self) -> bool:
        """Whether the text read so far ends inside a fenced code block (its raw text shows as code)."""
        return self._scanner.fence is not None


class StreamFrame:
    """One frame's changes of one streamed answer, each rendered once and shared by every tab at the same
    point."""

    def __init__(self, entry_id: str, text: str, stream: Stream, now: float) -> None:
        self.entry_id = entry_id
        self.text = text
        self.stream = stream
        self.end, self.replaced = stream.advance(text)
        self._now = now
        self._may_format = len(text) - self.end <= SHORT_TAIL or now >= stream.format_due
        self._added: dict[int, Markup] = {}
        self._tail: str | None = None
        self._raw: dict[int, str] = {}

    def for_tab(self, shown: Shown) -> tuple[str, Shown]:
        """What a tab showing `shown` is sent, and what it shows then."""
        text, end = self.text, self.end
        parts: list[str] = []
        if end > shown.done:
            parts.append(render.message_added(self.entry_id, self._added_since(shown.done)))
        if self._may_format and (end > shown.done or shown.raw or shown.upto < len(text)):
            parts.append(self._formatted_tail())
            return "".join(parts), Shown(end, len(text))
        if end > shown.done:  # a block finished, and the long tail after it may not be rendered yet
            parts.append(render.message_tail(self.entry_id, self._raw_markup(end)))
            return "".join(parts), Shown(end, len(text), raw=True)
        if shown.upto < len(text):
            parts.append(self._raw_append(shown.upto))
            return "".join(parts), Shown(end, len(text), raw=True)
        return "".join(parts), shown

    def _added_since(self, start: int) -> Markup:
        added = self._added.get(start)
        if added is None:
            added = self._added[start] = render_markdown(self.text[start : self.end])
        return added

    def _formatted_tail(self) -> str:
        if self._tail is None:
            tail = self.text[self.end :]
            started = time.perf_counter()
            self._tail = render.message_tail(self.entry_id, render_markdown(tail))
            if len(tail) > SHORT_TAIL:  # a long tail: the next render waits
                took = time.perf_counter() - started
                self.stream.format_due = self._now + max(FORMAT_INTERVAL, FORMAT_SHARE * took)
        return self._tail

    def _raw_markup(self, start: int) -> Markup:
        return render.raw_text(self.text[start:], code=self.stream.in_code)

    def _raw_append(self, start: int) -> str:
        found = self._raw.get(start)
        if found is None:
            found = self._raw[start] = render.message_raw(self.entry_id, self._raw_markup(start))
        return found
