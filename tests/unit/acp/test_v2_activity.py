"""ACP v2 activity updates of the current draft: notices, compactions, background work, error stop
reasons, cancellable tool calls and terminals, and commands in a session's answer."""

from __future__ import annotations

from typing import Any

from webclient.acp.capabilities import initialize_params_v2
from webclient.acp.models import (
    BackgroundWork,
    CompactionEvent,
    Notice,
    NoticeLevel,
    StateEvent,
    TerminalEvent,
    ToolCallEvent,
    TurnError,
)
from webclient.acp.v2.answers import opened_v2
from webclient.acp.v2.translate import V2Translator


def one(update: dict[str, Any]) -> Any:
    (event,) = V2Translator().translate({"sessionId": "s", "update": update}).events
    return event


def test_a_notice_keeps_its_severity_title_and_description_and_an_unknown_severity_is_information() -> None:
    warning = one({"sessionUpdate": "notice", "severity": "warning", "title": "Limits", "description": "80%"})
    assert warning == Notice(level=NoticeLevel.WARNING, text="Limits", description="80%", from_agent=True)
    newer = one({"sessionUpdate": "notice", "severity": "_loud", "title": "Hi"})
    assert newer.level is NoticeLevel.INFO and newer.description is None and newer.from_agent


def test_a_notice_without_a_title_is_malformed_and_said() -> None:
    event = one({"sessionUpdate": "notice", "severity": "info"})
    assert isinstance(event, Notice) and not event.from_agent and "malformed notice" in event.text


def test_compaction_updates_and_summary_chunks() -> None:
    started = one({"sessionUpdate": "compaction_update", "compactionId": "c", "status": "in_progress"})
    chunk = one(
        {
            "sessionUpdate": "compaction_summary_chunk",
            "compactionId": "c",
            "content": {"type": "text", "text": "A"},
        }
    )
    failed = one(
        {"sessionUpdate": "compaction_update", "compactionId": "c", "status": "failed", "error": "no"}
    )
    assert started == CompactionEvent(compaction_id="c", status="in_progress")
    assert chunk == CompactionEvent(compaction_id="c", appended="A")
    assert failed.status == "failed" and failed.error == "no"


def test_state_carries_background_work_and_an_error_stop_reason_its_error() -> None:
    state = one(
        {
            "sessionUpdate": "state_update",
            "state": "idle",
            "stopReason": "error",
            "error": {"code": -32603, "message": "boom", "data": {"retry": 1}},
            "background": [
                {"type": "terminal", "terminalId": "t"},
                {"type": "tool_call", "toolCallId": "c"},
                {"type": "_job", "jobId": "j"},
                {"type": "terminal"},  # no id: left out
            ],
        }
    )
    assert isinstance(state, StateEvent) and state.stop_reason == "error"
    assert state.error == TurnError(code=-32603, message="boom", data={"retry": 1})
    assert state.background == (
        BackgroundWork(kind="terminal", id="t"),
        BackgroundWork(kind="tool_call", id="c"),
        BackgroundWork(kind="_job", id="j"),
    )
    assert one({"sessionUpdate": "state_update", "state": "running"}).background is None  # unchanged
    assert one({"sessionUpdate": "state_update", "state": "running", "background": None}).background == ()


def test_cancel_capabilities_of_tool_calls_and_terminals() -> None:
    tool = one({"sessionUpdate": "tool_call_update", "toolCallId": "c", "capabilities": {"cancel": {}}})
    plain = one({"sessionUpdate": "tool_call_update", "toolCallId": "c", "status": "completed"})
    revoked = one({"sessionUpdate": "terminal_update", "terminalId": "t", "capabilities": {"cancel": None}})
    assert isinstance(tool, ToolCallEvent) and tool.cancellable is True and plain.cancellable is None
    assert isinstance(revoked, TerminalEvent) and revoked.cancellable is False


def test_a_new_session_answer_lists_its_commands() -> None:
    opened = opened_v2(
        "s",
        {"sessionId": "s", "availableCommands": [{"type": "command", "name": "plan", "description": "Plan"}]},
    )
    assert opened.commands is not None and [c.name for c in opened.commands] == ["plan"]
    assert opened_v2("s", {"sessionId": "s"}).commands is None


def test_the_jetbrains_air_marker_sits_in_the_v2_capabilities_meta_only_when_asked() -> None:
    assert initialize_params_v2(prompt_suggestions=True, jetbrains_air=True)["capabilities"]["_meta"] == {
        "jetbrains": {"air": {}}
    }
    assert "_meta" not in initialize_params_v2(prompt_suggestions=True)["capabilities"]
