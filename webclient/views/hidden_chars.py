"""Characters a reader cannot see, found and named so a template can show them as visible markers.

A suggestion is model output that content the agent read can steer (protocol notes, rule 9): a bidi
override can make `invoice_<U+202E>fdp.exe` read as `invoice_exe.pdf`, zero-width characters can split
words a reviewer would notice, and Unicode tag characters can carry a whole invisible sentence. Pure
functions, no I/O: `segments()` splits text into plain runs and hidden runs, each hidden run labelled.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

# Named explicitly (they are all format characters too; the list documents what we look for).
BIDI_CONTROLS = frozenset(
    [chr(c) for c in range(0x202A, 0x202F)]  # embeddings and overrides
    + [chr(c) for c in range(0x2066, 0x206A)]  # isolates
    + ["\u200e", "\u200f", "\u061c"]  # marks
)
ZERO_WIDTH = frozenset(["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"])
TAG_FIRST, TAG_LAST = 0xE0000, 0xE007F
# Invisible, or rendered as blank, although not in the "format" category.
_OTHER_INVISIBLE = frozenset(["\u034f", "\u115f", "\u1160", "\u3164", "\uffa0"])
_VARIATION_SUPPLEMENT = range(0xE0100, 0xE01F0)  # 240 selectors that can encode a byte each
_VISIBLE_CONTROLS = frozenset("\n\t")  # line breaks and tabs are shown as what they are


@dataclass(frozen=True)
class Segment:
    """A run of text: plain (`hidden` False), or hidden characters with a visible `label`.

    `label` is what the marker shows (`U+202E`, `U+200B` with a count, `tags: "ignore…"`); `name` is the
    Unicode name for a tooltip.
    """

    text: str
    hidden: bool = False
    label: str = ""
    name: str = ""


def is_hidden(char: str) -> bool:
    """Whether one character is invisible or changes how its neighbours display."""
    if char in _VISIBLE_CONTROLS:
        return False
    if char in BIDI_CONTROLS or char in ZERO_WIDTH or char in _OTHER_INVISIBLE:
        return True
    code = ord(char)
    if TAG_FIRST <= code <= TAG_LAST or code in _VARIATION_SUPPLEMENT:
        return True
    return unicodedata.category(char) in ("Cf", "Cc")


def prepare() -> None:
    """Build the pattern the scans use now: a server does at start, on a worker thread. Built by the first
    message shown instead, it held the event loop 100 to 250 ms in the server's first turn."""
    _hidden_pattern()


@functools.cache
def _hidden_pattern() -> re.Pattern[str]:
    """One character that `is_hidden`, as a regex: the scans below then run in C, not character by
    character in Python (a 5 MB message took seconds). Built once, on first use, from `is_hidden` over
    the planes that hold format and control characters (0, 1 and 14: no other plane has any)."""
    planes = (*range(0x20000), *range(0xE0000, 0xE1000))
    hidden = [code for code in planes if not 0xD800 <= code <= 0xDFFF and is_hidden(chr(code))]
    ranges: list[list[int]] = []
    for code in hidden:  # as ranges: a class of single characters past U+FFFF is searched slowly
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    parts = (re.escape(chr(a)) + ("" if a == b else "-" + re.escape(chr(b))) for a, b in ranges)
    return re.compile("[" + "".join(parts) + "]")


def has_hidden(text: str) -> bool:
    return _hidden_pattern().search(text) is not None


def count_hidden(text: str) -> int:
    return len(_hidden_pattern().findall(text))


def strip_hidden(text: str) -> str:
    """The text without its hidden characters: what a reader of it believes it says."""
    return _hidden_pattern().sub("", text)


def segments(text: str) -> list[Segment]:
    """Split `text` into plain runs and labelled hidden runs, in order; joined, they give `text` back.

    A run of tag characters becomes one marker that spells out the ASCII it hides; a run of one repeated
    hidden character becomes one marker with a count; any other hidden character gets its own marker.
    """
    result: list[Segment] = []
    pattern = _hidden_pattern()
    i = 0
    while (found := pattern.search(text, i)) is not None:
        start = found.start()
        if start > i:
            result.append(Segment(text[i:start]))
        end = _run_end(text, start)
        result.append(_marker(text[start:end]))
        i = end
    if i < len(text):
        result.append(Segment(text[i:]))
    return result


def _is_tag(char: str) -> bool:
    return TAG_FIRST <= ord(char) <= TAG_LAST


def _run_end(text: str, start: int) -> int:
    first = text[start]
    same = _is_tag if _is_tag(first) else first.__eq__
    end = start + 1
    while end < len(text) and same(text[end]):
        end += 1
    return end


def _marker(run: str) -> Segment:
    first = run[0]
    if _is_tag(first):
        spelled = "".join(chr(ord(c) - TAG_FIRST) if 0x20 <= ord(c) - TAG_FIRST < 0x7F else "?" for c in run)
        return Segment(run, True, f"tags: “{spelled}”", "Unicode tag characters")
    label = f"U+{ord(first):04X}"
    if len(run) > 1:
        label += f" \u00d7{len(run)}"
    return Segment(run, True, label, unicodedata.name(first, "unnamed control character"))
