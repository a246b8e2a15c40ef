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

A long tail's render takes time in proportion to the tail (tens of milliseconds for a paragraph of 50,000
characters on a busy machine): in a frame, every chunk behind it would wait that long. So a stream whose
owner renders its long tail elsewhere (`off_loop`, on a worker thread, which gives the loop its turn
every few milliseconds) never renders it in a frame: the owner hands the render in (`formatted`), and
the next frame sends it with the text that arrived since, raw, after it.
"""

from __future__ import annotations

import copy
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
# A frame that renders more Markdown than this (a long block that finished: a list of 2,000 items took
# 280 ms on a busy machine) is rendered on a worker thread, so other tabs are served meanwhile.
LONG_MARKDOWN = 10_000


@dataclass
class Shown:
    """What one tab shows of one streamed answer."""

    done: int  # its finished blocks end here
    upto: int  # its tail shows the text up to here
    raw: bool = False  # some of its tail is raw text, not yet rendered as Markdown
    formatted: int = 0  # the serial of the render made off the loop it was sent last


@dataclass(frozen=True)
class Formatted:
    """A long open tail rendered off the event loop: the tail's frame for the text from `end` (where the
    finished blocks ended) to `upto`; `serial` tells one render from the next."""

    end: int
    upto: int
    frame: str
    serial: int


class Stream:
    """One streamed answer, shared by every tab: where its blocks end (each line read once) and when its
    open block may be rendered again."""

    def __init__(self) -> None:
        self._text = ""
        self._scanner = BlockScanner()
        self.references = ReferenceWatch()  # an answer with a reference definition is shown whole
        self.format_due = 0.0  # the loop time from which a long tail may be rendered again
        self.off_loop = False  # its owner renders its long tail (`tail_job`, `formatted`), never a frame
        self.formatted: Formatted | None = None
        self._serial = 0

    def advance(self, text: str) -> tuple[int, bool]:
        """Where the finished blocks of `text` end, and whether `text` no longer continues the text seen
        before (an ACP v2 message whose content was replaced): then the tabs need the answer whole."""
        replaced = not text.startswith(self._text)
        if replaced:
            self._scanner = BlockScanner()
        self._text = text
        end = self._scanner.advance(text)
        if replaced or (self.formatted is not None and self.formatted.end != end):
            self.formatted = None  # a render of a tail that is no longer the tail
        return end, replaced

    def continues(self, text: str) -> bool:
        """Whether `text` continues the text the last frame read (grew, or stayed as it was)."""
        return text.startswith(self._text)

    def work(self, text: str, now: float) -> int:
        """What the next frame of `text` renders, in characters: what arrived, and the tail if its render
        may be due."""
        tail = len(text) - self._scanner.end
        due = tail <= SHORT_TAIL or (not self.off_loop and now >= self.format_due)
        return max(0, len(text) - len(self._text)) + (tail if due else 0)

    def markdown_work(self, text: str, now: float) -> int:
        """The characters of Markdown the next frame of `text` renders: the blocks it finishes, and the
        tail if its render is due (`text` whole if it replaced the text seen before)."""
        if not text.startswith(self._text):
            return len(text)
        end = copy.copy(self._scanner).advance(text)  # a look ahead: reads the new lines only
        tail = len(text) - end
        due = tail <= SHORT_TAIL or (not self.off_loop and now >= self.format_due)
        return max(0, end - self._scanner.end) + (tail if due else 0)

    def tail_job(self) -> tuple[int, str] | None:
        """The long tail to render now, as the last frame read the text: where it starts and the text;
        None when the tail is short (each frame renders it)."""
        end = self._scanner.end
        return (end, self._text) if len(self._text) - end > SHORT_TAIL else None

    def rendered(self, job: tuple[int, str], done: tuple[str, float], now: float) -> bool:
        """`render_tail`'s frame of a `tail_job`, made off the loop, handed in; False if the answer moved on
        meanwhile (a block finished, or its text was replaced) and it is of no use."""
        (end, text), (frame, took) = job, done
        self.format_due = now + max(FORMAT_INTERVAL, FORMAT_SHARE * took)
        if end != self._scanner.end or not self._text.startswith(text):
            return False
        self._serial += 1
        self.formatted = Formatted(end, len(text), frame, self._serial)
        return True

    @property
    def in_code(self) -> bool:
        """Whether the text read so far ends inside a fenced code block (its raw text shows as code)."""
        return self._scanner.fence is not None


def render_tail(entry_id: str, job: tuple[int, str]) -> tuple[str, float]:
    """The frame of a `tail_job`'s tail rendered as Markdown, and the CPU seconds it took (on the thread
    it ran on: a worker's wall time counts the loop's turns too)."""
    end, text = job
    started = time.thread_time()
    frame = render.message_tail(entry_id, render_markdown(text[end:]))
    return frame, time.thread_time() - started


class StreamFrame:
    """One frame's changes of one streamed answer, each rendered once and shared by every tab at the same
    point."""

    def __init__(self, entry_id: str, text: str, stream: Stream, now: float) -> None:
        self.entry_id = entry_id
        self.text = text
        self.stream = stream
        self.end, self.replaced = stream.advance(text)
        self._now = now
        short = len(text) - self.end <= SHORT_TAIL
        self._may_format = short or (not stream.off_loop and now >= stream.format_due)
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
        formatted = self.stream.formatted
        if (
            formatted is not None
            and formatted.serial != shown.formatted
            and formatted.end == end
            and (shown.raw or shown.upto < formatted.upto)  # a tab showing a whole render has better
        ):
            return self._with_formatted(parts, formatted)
        if end > shown.done:  # a block finished, and the long tail after it may not be rendered yet
            parts.append(render.message_tail(self.entry_id, self._raw_markup(end)))
            return "".join(parts), Shown(end, len(text), raw=True, formatted=shown.formatted)
        if shown.upto < len(text):
            parts.append(self._raw_append(shown.upto))
            return "".join(parts), Shown(end, len(text), raw=True, formatted=shown.formatted)
        return "".join(parts), shown

    def _with_formatted(self, parts: list[str], formatted: Formatted) -> tuple[str, Shown]:
        """The tail rendered off the loop, and what arrived after it as raw text."""
        parts.append(formatted.frame)
        raw = formatted.upto < len(self.text)
        if raw:
            parts.append(self._raw_append(formatted.upto))
        return "".join(parts), Shown(self.end, len(self.text), raw=raw, formatted=formatted.serial)

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
