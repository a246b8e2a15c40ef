"""Every ACP v1 `session/update` variant maps to our models; bad input becomes a notice, never an error."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from acp import schema

from webclient.acp.content_blocks import content_to_wire, prompt_to_wire, translate_content
from webclient.acp.controls import ConfigChoice, ConfigGroup, ConfigOption
from webclient.acp.models import (
    AudioPart,
    Command,
    CommandsEvent,
    ConfigOptionsEvent,
    ContentPart,
    ImagePart,
    MessageChunk,
    ModeEvent,
    Notice,
    NoticeLevel,
    PlanEntry,
    PlanEvent,
    PromptBlock,
    ResourceLinkPart,
    ResourcePart,
    SessionInfoEvent,
    Skipped,
    Suggestion,
    SuggestionsEvent,
    TextPart,
    ToolCallContent,
    ToolCallEvent,
    ToolCallLocation,
    Translation,
    UsageEvent,
)
from webclient.acp.suggestions import BASELINE_TYPES
from webclient.acp.v1.translate import translate_update

SESSION = "sess-1"


def translate(update: dict[str, Any]) -> Translation:
    return translate_update({"sessionId": SESSION, "update": update})


def only_event(update: dict[str, Any]) -> Any:
    result = translate(update)
    assert result.session_id == SESSION
    assert len(result.events) == 1
    return result.events[0]


# --- content blocks, one per kind, as the wire carries them and as we model them ----------------------

CONTENT: dict[str, tuple[dict[str, Any], ContentPart]] = {
    "text": ({"type": "text", "text": "hello **world**"}, TextPart(text="hello **world**")),
    "image": (
        {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo=", "uri": "file:///tmp/a.png"},
        ImagePart(mime_type="image/png", data="iVBORw0KGgo=", uri="file:///tmp/a.png"),
    ),
    "image without uri": (
        {"type": "image", "mimeType": "image/jpeg", "data": "/9j/4AAQ"},
        ImagePart(mime_type="image/jpeg", data="/9j/4AAQ"),
    ),
    "audio": (
        {"type": "audio", "mimeType": "audio/wav", "data": "UklGRg=="},
        AudioPart(mime_type="audio/wav", data="UklGRg=="),
    ),
    "resource_link": (
        {
            "type": "resource_link",
            "name": "app.py",
            "uri": "file:///w/src/app.py",
            "title": "The app",
            "mimeType": "text/x-python",
            "size": 1234,
        },
        ResourceLinkPart(
            name="app.py", uri="file:///w/src/app.py", title="The app", mime_type="text/x-python", size=1234
        ),
    ),
    "resource_link minimal": (
        {"type": "resource_link", "name": "notes", "uri": "file:///w/notes.txt"},
        ResourceLinkPart(name="notes", uri="file:///w/notes.txt"),
    ),
    "resource with text": (
        {
            "type": "resource",
            "resource": {"uri": "file:///w/a.md", "mimeType": "text/markdown", "text": "# A"},
        },
        ResourcePart(uri="file:///w/a.md", mime_type="text/markdown", text="# A"),
    ),
    "resource with blob": (
        {"type": "resource", "resource": {"uri": "file:///w/a.bin", "blob": "AAEC"}},
        ResourcePart(uri="file:///w/a.bin", blob="AAEC"),
    ),
}


# --- message chunks -------------------------------------------------------------------------------------

Role = Literal["user", "agent", "thought"]
ROLES: dict[str, Role] = {
    "user_message_chunk": "user",
    "agent_message_chunk": "agent",
    "agent_thought_chunk": "thought",
}


@pytest.mark.parametrize("variant, role", ROLES.items())
@pytest.mark.parametrize("wire, part", CONTENT.values(), ids=CONTENT.keys())
def test_message_chunk_of_every_content_kind_becomes_a_message_chunk_of_its_role(
    variant: str, role: Role, wire: dict[str, Any], part: ContentPart
) -> None:
    event = only_event({"sessionUpdate": variant, "content": wire})
    assert event == MessageChunk(role=role, content=part, message_id=None)


@pytest.mark.parametrize("variant, role", ROLES.items())
def test_message_chunk_keeps_its_message_id(variant: str, role: Role) -> None:
    event = only_event(
        {"sessionUpdate": variant, "content": {"type": "text", "text": "x"}, "messageId": "m-7"}
    )
    assert event == MessageChunk(role=role, content=TextPart(text="x"), message_id="m-7")


def test_message_chunk_ignores_annotations_and_meta_on_its_content() -> None:
    content = {"type": "text", "text": "x", "annotations": {"audience": ["user"]}, "_meta": {"k": 1}}
    event = only_event({"sessionUpdate": "agent_message_chunk", "content": content, "_meta": {"trace": "t"}})
    assert event == MessageChunk(role="agent", content=TextPart(text="x"))


@pytest.mark.parametrize(
    "update",
    [
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": 7}},
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text"}},
        {"sessionUpdate": "agent_message_chunk", "content": "x"},
    ],
    ids=["text not a string", "no text", "content not an object"],
)
def test_a_malformed_plain_text_chunk_is_a_notice_not_a_message(update: dict[str, Any]) -> None:
    event = only_event(update)
    assert isinstance(event, Notice)
    assert event.level is NoticeLevel.WARNING


# --- tool calls -----------------------------------------------------------------------------------------


def test_tool_call_with_every_field_maps_each_value() -> None:
    event = only_event(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "call-1",
            "title": "Edit app.py",
            "kind": "edit",
            "status": "in_progress",
            "content": [
                {"type": "content", "content": {"type": "text", "text": "reading"}},
                {"type": "diff", "path": "/w/app.py", "oldText": "a = 1\n", "newText": "a = 2\n"},
                {"type": "diff", "path": "/w/new.py", "newText": "print()\n"},
                {"type": "terminal", "terminalId": "term-9"},
            ],
            "locations": [{"path": "/w/app.py", "line": 12}, {"path": "/w/new.py"}],
            "rawInput": {"path": "/w/app.py", "edits": [1, 2]},
            "rawOutput": {"ok": True, "lines": ["a", "b"]},
        }
    )
    assert event == ToolCallEvent(
        tool_call_id="call-1",
        is_update=False,
        title="Edit app.py",
        kind="edit",
        status="in_progress",
        content=(
            ToolCallContent(kind="content", content=TextPart(text="reading")),
            ToolCallContent(kind="diff", path="/w/app.py", old_text="a = 1\n", new_text="a = 2\n"),
            ToolCallContent(kind="diff", path="/w/new.py", old_text=None, new_text="print()\n"),
            ToolCallContent(kind="terminal", terminal_id="term-9"),
        ),
        locations=(ToolCallLocation(path="/w/app.py", line=12), ToolCallLocation(path="/w/new.py")),
        raw_input={"path": "/w/app.py", "edits": [1, 2]},
        raw_output={"ok": True, "lines": ["a", "b"]},
    )


@pytest.mark.parametrize("wire, part", CONTENT.values(), ids=CONTENT.keys())
def test_tool_call_content_block_of_every_kind_is_translated(wire: dict[str, Any], part: ContentPart) -> None:
    event = only_event(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "c",
            "title": "t",
            "content": [{"type": "content", "content": wire}],
        }
    )
    assert event.content == (ToolCallContent(kind="content", content=part),)


def test_tool_call_with_only_required_fields_leaves_the_rest_unset() -> None:
    event = only_event({"sessionUpdate": "tool_call", "toolCallId": "c", "title": "Think"})
    assert event == ToolCallEvent(tool_call_id="c", is_update=False, title="Think")


def test_tool_call_update_with_only_a_status_leaves_every_other_field_unset() -> None:
    event = only_event({"sessionUpdate": "tool_call_update", "toolCallId": "call-1", "status": "completed"})
    assert event == ToolCallEvent(tool_call_id="call-1", is_update=True, status="completed")
    assert (event.title, event.kind, event.content, event.locations) == (None, None, None, None)
    assert (event.raw_input, event.raw_output) == (None, None)


def test_tool_call_update_sends_new_content_and_raw_output() -> None:
    event = only_event(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "call-1",
            "title": "Edited",
            "content": [{"type": "content", "content": {"type": "text", "text": "done"}}],
            "rawOutput": {"exit": 0},
        }
    )
    assert event == ToolCallEvent(
        tool_call_id="call-1",
        is_update=True,
        title="Edited",
        content=(ToolCallContent(kind="content", content=TextPart(text="done")),),
        raw_output={"exit": 0},
    )


def test_tool_call_update_with_an_empty_content_list_clears_content() -> None:
    event = only_event({"sessionUpdate": "tool_call_update", "toolCallId": "c", "content": []})
    assert event.content == ()


# --- plan, commands, mode, config, info, usage ----------------------------------------------------------


def test_plan_maps_every_entry_in_order() -> None:
    event = only_event(
        {
            "sessionUpdate": "plan",
            "entries": [
                {"content": "Read the code", "priority": "high", "status": "completed"},
                {"content": "Write tests", "priority": "medium", "status": "in_progress"},
                {"content": "Tidy up", "priority": "low", "status": "pending"},
            ],
        }
    )
    assert event == PlanEvent(
        entries=(
            PlanEntry(content="Read the code", priority="high", status="completed"),
            PlanEntry(content="Write tests", priority="medium", status="in_progress"),
            PlanEntry(content="Tidy up", priority="low", status="pending"),
        )
    )


def test_empty_plan_becomes_a_plan_with_no_entries() -> None:
    assert only_event({"sessionUpdate": "plan", "entries": []}) == PlanEvent(entries=())


def test_available_commands_with_and_without_input_hint() -> None:
    event = only_event(
        {
            "sessionUpdate": "available_commands_update",
            "availableCommands": [
                {"name": "web", "description": "Search the web", "input": {"hint": "query to search for"}},
                {"name": "init", "description": "Create AGENTS.md"},
                {"name": "plain", "description": "No input", "input": None},
            ],
        }
    )
    assert event == CommandsEvent(
        commands=(
            Command(name="web", description="Search the web", input_hint="query to search for"),
            Command(name="init", description="Create AGENTS.md", input_hint=None),
            Command(name="plain", description="No input", input_hint=None),
        )
    )


def test_current_mode_update_carries_the_mode_id() -> None:
    event = only_event({"sessionUpdate": "current_mode_update", "currentModeId": "architect"})
    assert event == ModeEvent(current_mode_id="architect")


def test_config_option_update_becomes_our_select_and_boolean_models() -> None:
    select = {
        "id": "model",
        "name": "Model",
        "description": "Which model answers",
        "type": "select",
        "currentValue": "fast",
        "options": [{"value": "fast", "name": "Fast"}, {"value": "smart", "name": "Smart"}],
    }
    toggle = {"id": "web", "name": "Web access", "type": "boolean", "currentValue": True}
    event = only_event({"sessionUpdate": "config_option_update", "configOptions": [select, toggle]})
    assert isinstance(event, ConfigOptionsEvent)
    assert event.options == (
        ConfigOption(
            id="model",
            name="Model",
            description="Which model answers",
            kind="select",
            current="fast",
            groups=(
                ConfigGroup(
                    name=None,
                    choices=(
                        ConfigChoice(value="fast", name="Fast"),
                        ConfigChoice(value="smart", name="Smart"),
                    ),
                ),
            ),
        ),
        ConfigOption(id="web", name="Web access", kind="boolean", current=True),
    )


def test_session_info_update_with_title_timestamp_and_meta() -> None:
    event = only_event(
        {
            "sessionUpdate": "session_info_update",
            "title": "Fix the login bug",
            "updatedAt": "2025-06-01T12:00:00Z",
            "_meta": {"vendor.example/pinned": True},
        }
    )
    assert event == SessionInfoEvent(title="Fix the login bug", updated_at="2025-06-01T12:00:00Z")


def test_session_info_update_without_fields_sends_nothing_to_change() -> None:
    event = only_event({"sessionUpdate": "session_info_update"})
    assert event == SessionInfoEvent()
    assert "title" not in event.model_fields_set


def test_session_info_update_with_null_title_says_the_title_was_cleared() -> None:
    event = only_event({"sessionUpdate": "session_info_update", "title": None})
    assert event.title is None
    assert "title" in event.model_fields_set


def test_session_info_update_with_meta_that_is_not_an_object_is_read_without_it() -> None:
    event = only_event({"sessionUpdate": "session_info_update", "title": "T", "_meta": "nope"})
    assert event == SessionInfoEvent(title="T")


def test_usage_update_with_cost() -> None:
    event = only_event(
        {
            "sessionUpdate": "usage_update",
            "used": 53000,
            "size": 200000,
            "cost": {"amount": 0.045, "currency": "USD"},
        }
    )
    assert event == UsageEvent(used=53000, size=200000, cost_amount=0.045, cost_currency="USD")


def test_usage_update_without_cost() -> None:
    event = only_event({"sessionUpdate": "usage_update", "used": 10, "size": 100})
    assert event == UsageEvent(used=10, size=100, cost_amount=None, cost_currency=None)


def test_every_session_update_variant_of_the_v1_schema_is_translated() -> None:
    # The 11 variants of $defs.SessionUpdate, each in its smallest valid form: none becomes a notice.
    minimal: list[dict[str, Any]] = [
        {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "a"}},
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "a"}},
        {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "a"}},
        {"sessionUpdate": "tool_call", "toolCallId": "t", "title": "a"},
        {"sessionUpdate": "tool_call_update", "toolCallId": "t"},
        {"sessionUpdate": "plan", "entries": []},
        {"sessionUpdate": "available_commands_update", "availableCommands": []},
        {"sessionUpdate": "current_mode_update", "currentModeId": "m"},
        {"sessionUpdate": "config_option_update", "configOptions": []},
        {"sessionUpdate": "session_info_update"},
        {"sessionUpdate": "usage_update", "used": 0, "size": 0},
    ]
    kinds = [type(only_event(update)) for update in minimal]
    assert Notice not in kinds
    assert kinds == [
        MessageChunk,
        MessageChunk,
        MessageChunk,
        ToolCallEvent,
        ToolCallEvent,
        PlanEvent,
        CommandsEvent,
        ModeEvent,
        ConfigOptionsEvent,
        SessionInfoEvent,
        UsageEvent,
    ]


# --- suggestions, unknown and malformed updates ---------------------------------------------------------


def test_prompt_suggestions_update_leaves_the_protocol_layer_parsed() -> None:
    block = {"type": "text", "text": "Run the tests", "_meta": {"x": 1}}
    update = {"sessionUpdate": "prompt_suggestions_update", "suggestions": [{"prompt": [block]}]}
    event = only_event(update)
    assert isinstance(event, SuggestionsEvent) and not event.legacy and event.malformed is None
    [suggestion] = event.suggestions
    assert suggestion.parts == (TextPart(text="Run the tests"),)
    assert suggestion.wire == (block,)  # as the agent wrote it, to be sent back deep-equal


def test_prompt_suggestions_are_checked_against_the_negotiated_block_types() -> None:
    image = {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}
    update = {"sessionUpdate": "prompt_suggestions_update", "suggestions": [{"prompt": [image]}]}
    refused = translate_update({"sessionId": SESSION, "update": update}).events
    allowed = translate_update({"sessionId": SESSION, "update": update}, BASELINE_TYPES | {"image"}).events
    assert refused == (
        SuggestionsEvent(skipped=(Skipped(0, "block 0 is 'image', which is not allowed on both sides"),)),
    )
    assert allowed == (
        SuggestionsEvent(
            suggestions=(
                Suggestion(parts=(ImagePart(mime_type="image/png", data="iVBORw0KGgo="),), wire=(image,)),
            )
        ),
    )


def test_a_malformed_prompt_suggestions_update_says_why_and_keeps_nothing() -> None:
    event = only_event({"sessionUpdate": "prompt_suggestions_update", "suggestions": "Run the tests"})
    assert event == SuggestionsEvent(
        malformed="prompt_suggestions_update whose suggestions is a string, not a list"
    )


def test_legacy_suggestions_in_session_info_meta_follow_the_info() -> None:
    meta = {"promptSuggestions": [{"text": "Run the tests"}]}
    update = {"sessionUpdate": "session_info_update", "title": "T", "_meta": meta}
    info, suggestions = translate_update({"sessionId": SESSION, "update": update}).events
    assert info == SessionInfoEvent(title="T")
    assert isinstance(suggestions, SuggestionsEvent) and suggestions.legacy
    assert [s.text for s in suggestions.suggestions] == ["Run the tests"]


@pytest.mark.parametrize("variant", ["telepathy_update", "agent_message", "", "PLAN"])
def test_update_with_unknown_variant_becomes_an_info_notice(variant: str) -> None:
    event = only_event({"sessionUpdate": variant, "content": {"type": "text", "text": "x"}})
    assert isinstance(event, Notice)
    assert event.level is NoticeLevel.INFO
    assert repr(variant) in event.text


@pytest.mark.parametrize("variant", ["plan_update", "plan_removed"])
def test_unstable_variant_becomes_an_info_notice_that_says_so(variant: str) -> None:
    event = only_event({"sessionUpdate": variant})
    assert event == Notice(
        level=NoticeLevel.INFO,
        text=f"ignored the unstable update {variant!r}, which this client does not show",
    )


MALFORMED_VARIANTS = {
    "chunk without content": {"sessionUpdate": "agent_message_chunk"},
    "chunk content is a string": {"sessionUpdate": "agent_message_chunk", "content": "hi"},
    "chunk text is a number": {
        "sessionUpdate": "agent_thought_chunk",
        "content": {"type": "text", "text": 5},
    },
    "chunk of unknown content type": {"sessionUpdate": "user_message_chunk", "content": {"type": "video"}},
    "image without data": {"sessionUpdate": "agent_message_chunk", "content": {"type": "image"}},
    "resource without uri": {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "resource", "resource": {"text": "x"}},
    },
    "tool_call without id": {"sessionUpdate": "tool_call", "title": "x"},
    "tool_call without title": {"sessionUpdate": "tool_call", "toolCallId": "t"},
    "tool_call id is a number": {"sessionUpdate": "tool_call", "toolCallId": 7, "title": "x"},
    "tool_call content not a list": {
        "sessionUpdate": "tool_call",
        "toolCallId": "t",
        "title": "x",
        "content": 3,
    },
    "tool_call_update without id": {"sessionUpdate": "tool_call_update", "status": "completed"},
    "plan without entries": {"sessionUpdate": "plan"},
    "plan entries not a list": {"sessionUpdate": "plan", "entries": "many"},
    "commands missing": {"sessionUpdate": "available_commands_update"},
    "mode missing": {"sessionUpdate": "current_mode_update"},
    "mode is null": {"sessionUpdate": "current_mode_update", "currentModeId": None},
    "config options not a list": {"sessionUpdate": "config_option_update", "configOptions": 5},
    "usage without size": {"sessionUpdate": "usage_update", "used": 1},
    "usage used is text": {"sessionUpdate": "usage_update", "used": "lots", "size": 2},
    "usage negative": {"sessionUpdate": "usage_update", "used": -1, "size": 2},
}


@pytest.mark.parametrize("update", MALFORMED_VARIANTS.values(), ids=MALFORMED_VARIANTS.keys())
def test_malformed_variant_becomes_a_warning_notice_naming_it(update: dict[str, Any]) -> None:
    event = only_event(update)
    assert isinstance(event, Notice)
    assert event.level is NoticeLevel.WARNING
    assert event.text == f"malformed {update['sessionUpdate']} update was ignored"
    assert event.detail  # says which field was wrong


def test_malformed_variant_notice_names_the_bad_field() -> None:
    event = only_event({"sessionUpdate": "usage_update", "used": "lots", "size": 2})
    assert "used" in str(event.detail)


MALFORMED_PARAMS = {
    "params is None": None,
    "params is a list": [{"sessionId": SESSION}],
    "params is a string": "session/update",
    "params is a number": 42,
    "missing sessionId": {"update": {"sessionUpdate": "plan", "entries": []}},
    "sessionId is a number": {"sessionId": 1, "update": {"sessionUpdate": "plan", "entries": []}},
    "missing update": {"sessionId": SESSION},
    "update is a string": {"sessionId": SESSION, "update": "plan"},
    "update without sessionUpdate": {"sessionId": SESSION, "update": {"entries": []}},
    "sessionUpdate is a number": {"sessionId": SESSION, "update": {"sessionUpdate": 3}},
}


@pytest.mark.parametrize("params", MALFORMED_PARAMS.values(), ids=MALFORMED_PARAMS.keys())
def test_malformed_params_become_one_warning_notice_and_never_raise(params: Any) -> None:
    result = translate_update(params)
    assert len(result.events) == 1
    assert isinstance(result.events[0], Notice)
    assert result.events[0].level is NoticeLevel.WARNING


def test_params_that_are_not_an_object_name_no_session() -> None:
    assert translate_update(["x"]).session_id is None


def test_missing_sessionid_names_no_session() -> None:
    assert translate_update({"update": {"sessionUpdate": "plan", "entries": []}}).session_id is None


def test_missing_update_still_names_the_session_it_came_from() -> None:
    result = translate_update({"sessionId": SESSION})
    assert result.session_id == SESSION
    [notice] = result.events
    assert isinstance(notice, Notice) and "update" in notice.text


def test_malformed_notice_detail_is_clipped() -> None:
    result = translate_update({"sessionId": 5, "junk": "x" * 10_000})
    [notice] = result.events
    assert isinstance(notice, Notice)
    detail = notice.detail
    assert detail is not None
    assert len(detail) <= 501


# --- content blocks: translate_content and content_to_wire ----------------------------------------------


@pytest.mark.parametrize("wire, part", CONTENT.values(), ids=CONTENT.keys())
def test_translate_content_maps_each_content_kind(wire: dict[str, Any], part: ContentPart) -> None:
    assert translate_content(wire) == part


@pytest.mark.parametrize("wire, part", CONTENT.values(), ids=CONTENT.keys())
def test_content_to_wire_round_trips_every_content_kind(wire: dict[str, Any], part: ContentPart) -> None:
    assert content_to_wire(part) == wire
    assert content_to_wire(translate_content(wire)) == wire
    assert translate_content(content_to_wire(part)) == part


def test_a_prompt_block_goes_out_as_the_agent_wrote_it_when_it_has_an_original() -> None:
    original = {
        "type": "resource_link",
        "name": "a.py",
        "uri": "file:///a.py",
        "title": None,
        "annotations": {"priority": 0.5},
        "_meta": {"example.com/x": [1, {"y": None}]},
    }
    block = PromptBlock(part=translate_content(original), original=original)
    assert prompt_to_wire([block]) == [original]
    assert content_to_wire(block.part) != original  # the part alone would lose `_meta` and annotations


def test_a_prompt_block_without_an_original_goes_out_as_its_part() -> None:
    image = ImagePart(mime_type="image/png", data="iVBORw0KGgo=")
    assert prompt_to_wire([PromptBlock(part=TextPart(text="look at ")), PromptBlock(part=image)]) == [
        {"type": "text", "text": "look at "},
        {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
    ]


def test_prompt_to_wire_keeps_the_order_of_mixed_blocks_and_copies_each_original() -> None:
    original = {"type": "text", "text": "hi", "_meta": {"k": 1}}
    blocks = [PromptBlock(part=TextPart(text="hi"), original=original), PromptBlock(part=TextPart(text="!"))]
    wire = prompt_to_wire(blocks)
    assert wire == [original, {"type": "text", "text": "!"}]
    assert wire[0] is not original  # what the connection sends is not the suggestion's own dict


def test_translate_content_accepts_an_sdk_model() -> None:
    block = schema.ResourceContentBlock(type="resource_link", name="a.py", uri="file:///a.py", size=3)
    assert translate_content(block) == ResourceLinkPart(name="a.py", uri="file:///a.py", size=3)


@pytest.mark.parametrize(
    "block",
    [{"type": "text"}, {"type": "video", "data": "x"}, {"text": "no type"}, "text", None, 3, []],
)
def test_translate_content_rejects_an_invalid_block_with_value_error(block: Any) -> None:
    with pytest.raises(ValueError):
        translate_content(block)
