"""A terminal's output as a card shows it: readable text, the tail only.

Commands write colour codes and cursor movements for a real terminal; a `<pre>` would show them as
garbage, so control sequences are removed (the text stays escaped by the template). A card shows at most
the last `SHOWN_CHARS` characters, so a long build log does not make every frame heavy.
"""

from __future__ import annotations

from dataclasses import dataclass

from webclient.text_controls import strip_controls

SHOWN_CHARS = 64 * 1024


@dataclass(frozen=True)
class ShownOutput:
    text: str
    clipped: bool  # the beginning is not shown


def terminal_text(output: str) -> ShownOutput:
    """The output without control sequences, its last `SHOWN_CHARS` characters."""
    # Only the tail can be shown: clean no more than twice that (escapes make the clean text shorter).
    head_dropped = len(output) > 2 * SHOWN_CHARS
    # A lone carriage return ends a progress line: only what was written after it stays.
    text = strip_controls(output[-2 * SHOWN_CHARS :].replace("\r\n", "\n"))
    text = "\n".join(line.rstrip("\r").rsplit("\r", 1)[-1] for line in text.split("\n"))
    if len(text) <= SHOWN_CHARS:
        return ShownOutput(text, head_dropped)
    return ShownOutput(text[-SHOWN_CHARS:], True)
