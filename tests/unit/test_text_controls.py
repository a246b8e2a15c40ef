"""Terminal control sequences out of agent text, and the stderr tail that uses it."""

from __future__ import annotations

from webclient.acp.stderr_tail import StderrTail
from webclient.text_controls import strip_controls, strip_line

# A codex-acp log line as it reached the exit notice's stderr tail (its tracing output, in colour).
CODEX_LOG = (
    "\x1b[2m2026-12-03T10:12:01.123Z\x1b[0m \x1b[33m WARN\x1b[0m \x1b[2mcodex_core\x1b[0m: model stream ended"
)


def test_colours_cursor_moves_titles_and_c0_controls_go_newlines_and_tabs_stay() -> None:
    assert strip_controls(CODEX_LOG) == "2026-12-03T10:12:01.123Z  WARN codex_core: model stream ended"
    assert strip_controls("\x1b]0;title\x07a\x1b[2K\x1b[1Gb\tc\nd\x00\x7f") == "ab\tc\nd"
    assert strip_controls("cut off \x1b]8;;http://x") == "cut off "
    assert strip_controls("plain text\n") == "plain text\n"


def test_a_carriage_return_leaves_the_last_state_of_a_line() -> None:
    assert strip_line("10%\r50%\r100%\r") == "100%"


def test_the_stderr_tail_has_no_escape_codes() -> None:
    tail = StderrTail()
    tail.feed((CODEX_LOG + "\n\x1b[31merror\x1b[0m: boom\n").encode())
    assert tail.lines() == ["2026-12-03T10:12:01.123Z  WARN codex_core: model stream ended", "error: boom"]
