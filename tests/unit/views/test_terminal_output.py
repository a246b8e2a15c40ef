"""A terminal's captured output (byte limit, character boundaries) and how a card shows it."""

from __future__ import annotations

from webclient.acp.models import TerminalExit, TerminalOutput, ToolCallContent, ToolCallEvent
from webclient.domain.state import SessionState
from webclient.domain.terminals import OutputBuffer, exit_of
from webclient.views import render
from webclient.views.terminal import SHOWN_CHARS, terminal_text


def test_a_character_split_across_reads_is_decoded_whole() -> None:
    buffer = OutputBuffer(limit=100)
    data = "é😀".encode()
    for i in range(len(data)):
        buffer.append(data[i : i + 1])
    assert buffer.text == "é😀" and not buffer.truncated


def test_the_limit_keeps_the_tail_and_never_half_a_character() -> None:
    buffer = OutputBuffer(limit=5)
    buffer.append("ab😀😀".encode())  # 2 + 4 + 4 bytes; the last 5 start inside the first 😀
    assert buffer.text == "😀" and buffer.truncated
    assert len(buffer.text.encode()) <= 5


def test_exit_codes_and_signals() -> None:
    assert exit_of(0) == TerminalExit(exit_code=0)
    assert exit_of(2) == TerminalExit(exit_code=2)
    assert exit_of(-9) == TerminalExit(signal="SIGKILL")


def test_control_sequences_are_removed_and_progress_lines_show_their_last_state() -> None:
    shown = terminal_text("\x1b[31mred\x1b[0m\r\n10%\r55%\r100%\n\x1b]0;title\x07done\x08\n")
    assert shown.text == "red\n100%\ndone\n" and not shown.clipped


def test_a_long_output_shows_its_tail() -> None:
    shown = terminal_text("x" * SHOWN_CHARS + "END")
    assert shown.clipped and shown.text.endswith("END") and len(shown.text) == SHOWN_CHARS


def test_a_cards_terminal_output_is_escaped_and_says_how_it_ended() -> None:
    state = SessionState()
    content = (ToolCallContent(kind="terminal", terminal_id="term-1"),)
    state.apply(
        ToolCallEvent(tool_call_id="t", is_update=False, title="run", kind="execute", content=content)
    )
    (item,) = state.items
    changed = state.set_terminal(
        "term-1",
        TerminalOutput(output="<script>x</script>\n", truncated=True, exit=TerminalExit(signal="SIGKILL")),
    )
    assert changed == {item.id}
    html = render.item(state, item)
    assert "<script>" not in html and "&lt;script&gt;x&lt;/script&gt;" in html
    assert "Killed by SIGKILL" in html and "Earlier output is not shown" in html
    assert state.set_terminal("term-2", TerminalOutput(output="", truncated=False)) == set()


def test_a_huge_output_is_cleaned_only_at_its_tail() -> None:
    shown = terminal_text("\x1b[31m" * SHOWN_CHARS + "x" * (2 * SHOWN_CHARS) + "\x1b[0mEND")
    assert shown.clipped and shown.text.endswith("xEND") and "\x1b" not in shown.text
