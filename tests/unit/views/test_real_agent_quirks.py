"""What real agents send that the page must take in stride: empty chunks, both kinds of mode control,
locations without a line, diffs in permission requests, output streamed in `_meta`, htmx settling."""

from __future__ import annotations

import re

from tests.support.html import tags, text
from webclient.acp.controls import ConfigChoice, ConfigGroup, ConfigOption, Mode
from webclient.acp.models import (
    ConfigOptionsEvent,
    MessageChunk,
    PermissionOption,
    PermissionRequest,
    TextPart,
    ToolCallContent,
    ToolCallEvent,
    ToolCallLocation,
)
from webclient.acp.v1.translate import translate_update
from webclient.domain.items import MessageItem, PermissionItem, ToolCallItem
from webclient.domain.state import Aspect, SessionState
from webclient.views import render


def test_an_empty_text_chunk_adds_no_message() -> None:
    state = SessionState()
    assert state.apply(MessageChunk(role="agent", content=TextPart(text=""))) == set()
    assert state.items == []
    state.apply(MessageChunk(role="agent", content=TextPart(text="Hello")))
    state.apply(MessageChunk(role="agent", content=TextPart(text="")))
    (item,) = state.items
    assert isinstance(item, MessageItem) and item.text == "Hello"


def _mode_option(category: str | None) -> ConfigOption:
    choices = (ConfigChoice(value="ask", name="Ask"), ConfigChoice(value="code", name="Code"))
    return ConfigOption(
        id="mode",
        name="Mode",
        kind="select",
        current="ask",
        groups=(ConfigGroup(name=None, choices=choices),),
        category=category,
    )


def _selectors(state: SessionState) -> list[str]:
    found = tags(render.region(state, Aspect.DETAILS))
    wanted = ("mode-select", "config-option")
    return [str(t.attrs["data-testid"]) for t in found if t.attrs.get("data-testid") in wanted]


def test_modes_and_a_mode_config_option_show_one_selector_the_config_option() -> None:
    state = SessionState()
    state.set_modes((Mode(id="ask", name="Ask"), Mode(id="code", name="Code")), "ask")
    state.set_config_options((_mode_option("mode"),))
    assert _selectors(state) == ["config-option"]


def test_modes_stay_when_no_config_option_is_of_category_mode() -> None:
    state = SessionState()
    state.set_modes((Mode(id="ask", name="Ask"),), "ask")
    state.set_config_options((_mode_option("model"),))
    assert _selectors(state) == ["mode-select", "config-option"]


def test_the_category_of_a_config_option_is_read_from_the_wire() -> None:
    wire = {
        "sessionUpdate": "config_option_update",
        "configOptions": [
            {"id": "m", "name": "Mode", "type": "select", "category": "mode", "currentValue": "a",
             "options": [{"value": "a", "name": "A"}]},
            {"id": "x", "name": "X", "type": "select", "category": {"custom": 1}, "currentValue": "a",
             "options": [{"value": "a", "name": "A"}]},
        ],
    }  # fmt: skip
    (event,) = translate_update({"sessionId": "s", "update": wire}).events
    assert isinstance(event, ConfigOptionsEvent)
    assert [o.category for o in event.options] == ["mode", None]


def _permission(**tool: object) -> tuple[SessionState, PermissionItem]:
    state = SessionState()
    call = ToolCallEvent(tool_call_id="t1", is_update=True, title="Edit app.py", kind="edit", **tool)  # type: ignore[arg-type]
    options = (PermissionOption(id="ok", name="Allow", kind="allow_once"),)
    item = PermissionItem(request=PermissionRequest(session_id="s", tool_call=call, options=options))
    state.add_item(item)
    return state, item


def test_a_permission_location_without_a_line_shows_the_path_alone() -> None:
    state, item = _permission(
        locations=(ToolCallLocation(path="/w/app.py"), ToolCallLocation(path="/w/b.py", line=7))
    )
    shown = text(render.item(state, item))
    assert "/w/b.py:7" in shown
    assert "/w/app.py" in shown and "/w/app.py:" not in shown


def test_an_edit_permission_with_a_proposed_diff_shows_the_diff() -> None:
    diff = ToolCallContent(kind="diff", path="/w/app.py", old_text="a = 1\n", new_text="a = 2\n")
    state, item = _permission(content=(diff,))
    html = render.item(state, item)
    (pre,) = [t for t in tags(html) if t.attrs.get("data-testid") == "diff"]
    assert pre.attrs["data-path"] == "/w/app.py"
    assert [t.attrs["class"] for t in tags(html) if t.attrs.get("class") in ("diff-add", "diff-del")] == [
        "diff-del",
        "diff-add",
    ]
    assert "+a = 2" in text(html) and "-a = 1" in text(html)


def _codex_update(body: dict[str, object]) -> ToolCallEvent:
    wire = {"sessionUpdate": "tool_call_update", "toolCallId": "call-1", **body}
    (event,) = translate_update({"sessionId": "s", "update": wire}).events
    assert isinstance(event, ToolCallEvent)
    return event


def test_output_streamed_in_meta_terminal_output_delta_shows_in_the_card_with_its_exit() -> None:
    state = SessionState()
    state.apply(ToolCallEvent(tool_call_id="call-1", is_update=False, title="ls", kind="execute"))
    meta = {"terminal_info": {"terminal_id": "call-1"}}
    state.apply(_codex_update({"content": [{"type": "terminal", "terminalId": "call-1"}], "_meta": meta}))
    for data in ("README.md\n", "src\n"):
        delta = {"terminal_id": "call-1", "data": data}
        state.apply(_codex_update({"_meta": {"terminal_output_delta": delta}}))
    done = {"terminal_id": "call-1", "exit_code": 0}
    state.apply(_codex_update({"status": "completed", "_meta": {"terminal_exit": done}}))
    (item,) = state.items
    assert isinstance(item, ToolCallItem)
    assert item.terminal_ids == {"call-1"}  # the card's own terminal content, not a second one
    html = render.item(state, item)
    assert [t.name for t in tags(html) if t.attrs.get("data-testid") == "terminal-output"] == ["pre"]
    assert "README.md\nsrc\n" in text(html)
    assert "Exited with code 0" in " ".join(text(html).split())
    assert "no output yet" not in text(html)


def test_meta_output_without_a_terminal_id_shows_in_its_tool_calls_card() -> None:
    state = SessionState()
    state.apply(ToolCallEvent(tool_call_id="call-2", is_update=False, title="make", kind="execute"))
    delta = {"data": "<b>x</b>"}
    state.apply(_codex_update({"toolCallId": "call-2", "_meta": {"terminal_output_delta": delta}}))
    (item,) = state.items
    html = render.item(state, item)
    assert "<b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
    assert "Running" in text(html)


def test_htmx_does_not_settle_style_attributes_which_the_csp_blocks() -> None:
    page = render.page(SessionState(), ws_path="/ws/s1")
    (meta,) = [t for t in tags(page) if t.name == "meta" and t.attrs.get("name") == "htmx-config"]
    settle = re.search(r'"attributesToSettle":\s*\[([^\]]*)\]', meta.attrs["content"] or "")
    assert settle is not None
    assert "style" not in settle.group(1) and "class" in settle.group(1)


def test_a_permission_does_not_repeat_a_diff_its_tool_calls_card_already_shows() -> None:
    diff = ToolCallContent(kind="diff", path="/w/app.py", old_text="a = 1\n", new_text="a = 2\n")
    state, item = _permission(content=(diff,))
    state.apply(ToolCallEvent(tool_call_id="t1", is_update=False, title="Edit app.py", content=(diff,)))
    html = render.item(state, item)
    assert [t for t in tags(html) if t.attrs.get("data-testid") == "diff"] == []


def test_meta_output_stays_in_its_card_when_later_content_replaces_the_cards_content() -> None:
    state = SessionState()
    state.apply(_codex_update({"toolCallId": "c", "_meta": {"terminal_output_delta": {"data": "built\n"}}}))
    done = ToolCallContent(kind="content", content=TextPart(text="Build finished"))
    state.apply(ToolCallEvent(tool_call_id="c", is_update=True, status="completed", content=(done,)))
    (item,) = state.items
    assert isinstance(item, ToolCallItem)
    assert [c.kind for c in item.content] == ["content", "terminal"]
    assert "built" in text(render.item(state, item))
