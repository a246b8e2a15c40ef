"""Terminal control sequences out of agent text: what a page can show of a log line or command output.

Agents and the commands they run write for a terminal: colours (`ESC[33m`), cursor moves, window titles
(OSC), and C0 controls. In a page these show as garbage ("␛[2m2026-…␛[0m"), so every place that shows
agent text as plain text (an exit notice's stderr tail, an error's data, tool and terminal output) removes
them here, in one way. Newlines and tabs stay; a carriage return is the caller's to interpret.
"""

from __future__ import annotations

import re

# CSI sequences (colours, cursor moves), OSC sequences (titles, links; ended by BEL or ST, or cut off at
# the end of the text), other two-character escapes, and the C0 controls and DEL a page cannot show.
_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\|$)"
    r"|\x1b[@-Z\\-_]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
    r"|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]"
)


def strip_controls(text: str) -> str:
    """`text` without terminal control sequences or C0 controls; newline, tab and carriage return stay."""
    if "\x1b" not in text and "\x9b" not in text and not _HAS_C0.search(text):
        return text  # the common case: nothing to do, no copy
    return _CONTROL.sub("", text)


def strip_line(text: str) -> str:
    """One line of a log (a stderr line): control sequences removed, and a carriage return's overwritten
    part gone (a progress bar leaves its last state)."""
    return strip_controls(text).rstrip("\r").rsplit("\r", 1)[-1]


_HAS_C0 = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
