"""ACP v2 updates into our models: upsert semantics kept (omitted, null, value), chunks, unknowns."""

from __future__ import annotations

import base64
from typing import Any

from webclient.acp.models import (
    CommandsEvent,
    ConfigOptionsEvent,
    MessageChunk,
    MessageUpsert,
    Notice,
    PlanEvent,
    SessionInfoEvent,
    StateEvent,
    SuggestionsEvent,
    TerminalEvent,
    TextPart,
    ToolCallEvent,
)
from webclient.acp.v2.answers import agent_capabilities_v2, agent_info_v2, permission_request_v2
from webclient.acp.v2.translate import V2Translator


def one(update: dict[str, Any], translator: V2Translator | None = None) -> Any:
    translation = (translator or V2Translator()).translate({"sessionId": "s", "update": update})
    assert translation.session_id == "s"
    (event,) = translation.events
    return event


def test_message_upsert_keeps_omitted_apart_from_null_and_from_a_value() -> None:
    replaced = one(
        {"sessionUpdate": "agent_message", "messageId": "m", "content": [{"type": "text", "text": "A"}]}
    )
    cleared = one({"sessionUpdate": "agent_message", "messageId": "m", "content": None})
    omitted = one({"sessionUpdate": "user_message", "messageId": "u"})
    assert isinstance(replaced, MessageUpsert) and replaced.parts == (TextPart(text="A"),)
    assert "parts" in cleared.model_fields_set and cleared.parts == ()
    assert omitted.role == "user" and "parts" not in omitted.model_fields_set


def test_chunks_need_their_message_id() -> None:
    chunk = one(
        {"sessionUpdate": "agent_thought_chunk", "messageId": "t", "content": {"type": "text", "text": "x"}}
    )
    assert isinstance(chunk, MessageChunk)
    assert (chunk.role, chunk.content.text, chunk.message_id) == ("thought", "x", "t")  # type: ignore[union-attr]
    missing = one({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}})
    assert isinstance(missing, Notice) and "malformed agent_message_chunk" in missing.text


def test_tool_call_update_patches_clears_and_a_content_chunk_appends() -> None:
    patch = one(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t",
            "status": "completed",
            "rawInput": None,
            "locations": [],
        }
    )
    assert isinstance(patch, ToolCallEvent) and patch.is_update and patch.status == "completed"
    assert patch.title is None and patch.cleared == frozenset({"raw_input", "locations"})
    item = {"type": "content", "content": {"type": "text", "text": "out"}}
    appended = one({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "t", "content": item})
    assert appended.appended[0].content == TextPart(text="out") and appended.content is None


def test_a_v2_diff_keeps_its_changes_and_patch_and_unknown_content_is_said() -> None:
    diff = {
        "type": "diff",
        "changes": [{"operation": "move", "oldPath": "/a", "path": "/b"}, {"operation": "add"}],
        "patch": {"format": "git_patch", "text": "diff --git a/a b/b"},
    }
    event = one(
        {"sessionUpdate": "tool_call_update", "toolCallId": "t", "content": [diff, {"type": "_hologram"}]}
    )
    moved, other = event.content
    assert moved.kind == "diff" and moved.patch == "diff --git a/a b/b" and moved.path == "/b"
    assert [(c.operation, c.path, c.old_path) for c in moved.changes] == [("move", "/b", "/a")]
    assert other.content == TextPart(text="[content of type '_hologram' not shown]")


def test_terminal_bytes_are_decoded_per_chunk_even_when_a_character_is_split() -> None:
    translator = V2Translator()
    data = "ok ✓".encode()
    first = one(
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "x", "data": b64(data[:4])}, translator
    )
    second = one(
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "x", "data": b64(data[4:])}, translator
    )
    assert (first.appended, second.appended) == ("ok ", "✓")
    snapshot = one(
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "x",
            "output": {"data": b64(b"fresh")},
            "exitStatus": {"signal": "SIGTERM"},
        },
        translator,
    )
    assert isinstance(snapshot, TerminalEvent) and snapshot.output == "fresh" and snapshot.exit is not None
    assert snapshot.exit.signal == "SIGTERM"
    bad = one({"sessionUpdate": "terminal_output_chunk", "terminalId": "x", "data": "%%%"}, translator)
    assert isinstance(bad, Notice)


def test_state_plans_commands_options_info_and_suggestions() -> None:
    assert one({"sessionUpdate": "state_update", "state": "idle", "stopReason": "max_tokens"}) == StateEvent(
        state="idle", stop_reason="max_tokens"
    )
    assert one({"sessionUpdate": "state_update", "state": "_custom"}) == StateEvent(state="_custom")
    plan = one(
        {
            "sessionUpdate": "plan_update",
            "plan": {"type": "items", "planId": "p", "entries": [{"content": "a"}]},
        }
    )
    assert isinstance(plan, PlanEvent) and plan.plan_id == "p" and plan.entries[0].status == "pending"
    unknown_plan = one({"sessionUpdate": "plan_update", "plan": {"type": "_graph", "planId": "p"}})
    assert isinstance(unknown_plan, Notice)
    commands = one(
        {
            "sessionUpdate": "available_commands_update",
            "availableCommands": [
                {"name": "web", "description": "d", "input": {"type": "text", "hint": "q"}}
            ],
        }
    )
    assert isinstance(commands, CommandsEvent) and commands.commands[0].input_hint == "q"
    options = one(
        {
            "sessionUpdate": "config_option_update",
            "configOptions": [
                {"configId": "b", "name": "B", "type": "boolean", "currentValue": True},
                {"configId": "z", "name": "Z", "type": "_dial"},
            ],
        }
    )
    assert isinstance(options, ConfigOptionsEvent) and [(o.id, o.current) for o in options.options] == [
        ("b", True)
    ]
    info = one({"sessionUpdate": "session_info_update", "title": None})
    assert isinstance(info, SessionInfoEvent) and "title" in info.model_fields_set and info.title is None
    assert isinstance(
        one({"sessionUpdate": "prompt_suggestions_update", "suggestions": []}), SuggestionsEvent
    )


def test_unknown_and_unreadable_updates_become_notices_never_errors() -> None:
    assert "unknown type 'teleport'" in one({"sessionUpdate": "teleport"}).text
    translation = V2Translator().translate("nonsense")
    assert translation.session_id is None and isinstance(translation.events[0], Notice)


def test_initialize_result_markers_count_by_presence_and_methods_by_type() -> None:
    info = agent_info_v2(
        {
            "protocolVersion": 2,
            "info": {"name": "a", "version": "1"},
            "capabilities": {"session": {"prompt": {"image": {}, "audio": None}, "mcp": {"http": {}}}},
            "authMethods": [
                {"methodId": "login", "type": "agent", "name": "Log in"},
                {"methodId": "tui", "type": "terminal", "name": "TUI", "args": ["--login"]},
                {"methodId": "x", "type": "_future", "name": "X"},
            ],
        }
    )
    caps = info.capabilities
    assert caps.prompt.image and not caps.prompt.audio and not caps.prompt.embedded_context  # {} is yes
    assert caps.load_session and caps.list_sessions and caps.resume_session and caps.close_session
    assert caps.mcp_http and not caps.delete_session
    assert [(m.id, m.kind) for m in info.auth_methods] == [("login", "agent"), ("tui", "terminal")]
    assert agent_capabilities_v2({}).list_sessions is False  # no session group: no session surface


def test_permission_request_in_v2_shape() -> None:
    options = [{"optionId": "ok", "name": "OK", "kind": "allow_once"}]
    tool = permission_request_v2(
        {
            "sessionId": "s",
            "title": "Run?",
            "subject": {"type": "tool_call", "toolCall": {"toolCallId": "t", "title": "pytest"}},
            "options": options,
        }
    )
    assert (
        tool is not None and tool.title == "Run?" and tool.tool_call.title == "pytest" and tool.updates_card
    )
    generic = permission_request_v2(
        {"sessionId": "s", "title": "Hm?", "subject": {"type": "_x"}, "options": options}
    )
    assert generic is not None and not generic.updates_card and generic.tool_call.raw_input == {"type": "_x"}
    assert permission_request_v2({"sessionId": "s", "title": "No options", "options": []}) is None


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()
