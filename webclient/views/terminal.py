"""A terminal's output as a card shows it: readable text, the tail only.

Commands write colour codes and cursor movements for a real terminal; a `<pre>` would show them as
garbage, so control sequences are removed (the text stays escaped by the template). A card shows at most
the last `SHOWN_CHARS` characters, so a long build log does not make every frame heavy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SHOWN_CHARS = 64 * 1024

# CSI sequences (colours, cursor moves), OSC sequences (titles, links), other two-character escapes, and
# the C0 controls a <pre> cannot show (tab, newline kept; a lone carriage return ends a progress line).
_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1b[@-Z\\-_]"
    r"|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]"
)


@dataclass(frozen=True)
class ShownOutput:
    text: str
    clipped: bool  # the beginning is not shown


def terminal_text(output: str) -> ShownOutput:
    """The output without control sequences, its last `SHOWN_CHARS` characters."""
    # Only the tail can be shown: clean no more than twice that (escapes make the clean text shorter).
    head_dropped = len(output) > 2 * SHOWN_CHARS
    text = _CONTROL.sub("", output[-2 * SHOWN_CHARS :].replace("\r\n", "\n"))
    text = "\n".join(line.rstrip("\r").rsplit("\r", 1)[-1] for line in text.split("\n"))
    if len(text) <= SHOWN_CHARS:
        return ShownOutput(text, head_dropped)
    return ShownOutput(text[-SHOWN_CHARS:], True)
