"""Terminal control sequences never reach the page: notices, messages, tool text (terminal output and
the stderr tail have tests of their own)."""

from __future__ import annotations

from webclient.acp.models import MessageChunk, Notice, NoticeLevel, TextPart, ToolCallContent, ToolCallEvent
from webclient.domain.state import SessionState
from webclient.views import render

RED = "\x1b[31m"
RESET = "\x1b[0m"


def rendered(state: SessionState) -> str:
    return "".join(render.item(state, item) for item in state.items)


def test_a_notice_and_its_detail_show_without_escape_codes() -> None:
    state = SessionState()
    state.add_notice(
        Notice(level=NoticeLevel.ERROR, text=f"{RED}boom{RESET}", detail=f"{RED}trace{RESET}\x07")
    )
    html = rendered(state)
    assert "\x1b" not in html and "\x07" not in html and "[31m" not in html
    assert "boom" in html and "trace" in html


def test_an_agent_message_and_a_tool_cards_markdown_show_without_escape_codes() -> None:
    state = SessionState()
    state.apply(MessageChunk(role="agent", content=TextPart(text=f"**{RED}done{RESET}**")))
    tool_text = TextPart(text=f"{RED}Found{RESET} 3 files")
    state.apply(
        ToolCallEvent(
            tool_call_id="t",
            is_update=False,
            kind="search",
            content=(ToolCallContent(kind="content", content=tool_text),),
        )
    )
    html = rendered(state)
    assert "\x1b" not in html and "[31m" not in html and "[0m" not in html
    assert "<strong>done</strong>" in html and "Found 3 files" in html
