"""A v2 session's activity beside the conversation: background work and compactions in the state, and
ACP's structured errors in words."""

from __future__ import annotations

from webclient.acp.models import BackgroundWork, CompactionEvent, NoticeLevel, StateEvent, ToolCallEvent
from webclient.domain.items import NoticeItem
from webclient.domain.reasons import agent_reason
from webclient.domain.state import Aspect, SessionState
from webclient.errors import AgentRequestError


def test_background_work_is_replaced_by_each_state_that_lists_it_and_kept_by_one_that_does_not() -> None:
    state = SessionState(protocol_version=2)
    work = (BackgroundWork(kind="terminal", id="t"),)
    assert Aspect.STATUS in state.apply(StateEvent(state="idle", background=work))
    state.apply(StateEvent(state="running"))
    assert state.activity.background == work
    state.apply(StateEvent(state="idle", background=()))
    assert not state.activity.background


def test_a_compaction_is_under_way_until_it_ends_and_then_says_so_with_its_summary() -> None:
    state = SessionState(protocol_version=2)
    state.apply(CompactionEvent(compaction_id="c", status="in_progress"))
    state.apply(CompactionEvent(compaction_id="c", appended="Short "))
    state.apply(CompactionEvent(compaction_id="c", appended="story."))
    assert state.activity.compacting
    changed = state.apply(CompactionEvent(compaction_id="c", status="completed"))
    assert not state.activity.compacting and Aspect.STATUS in changed
    [item] = [i for i in state.items if isinstance(i, NoticeItem)]
    assert item.notice.level is NoticeLevel.INFO and item.notice.detail == "Short story."


def test_a_failed_compaction_warns_with_the_agents_error() -> None:
    state = SessionState(protocol_version=2)
    state.apply(CompactionEvent(compaction_id="c", status="failed", error="context too small"))
    [item] = [i for i in state.items if isinstance(i, NoticeItem)]
    assert item.notice.level is NoticeLevel.WARNING and item.notice.detail == "context too small"


def test_a_tool_call_may_be_stopped_while_it_runs_and_the_agent_lets_it() -> None:
    state = SessionState(protocol_version=2)
    state.apply(ToolCallEvent(tool_call_id="c", is_update=True, status="in_progress", cancellable=True))
    card = state.tool_card("c")
    assert card is not None and card.stoppable
    state.apply(ToolCallEvent(tool_call_id="c", is_update=True, status="completed"))
    assert not card.stoppable


def test_acps_structured_errors_are_put_in_words() -> None:
    missing = AgentRequestError("session/resume", -32002, "Resource not found", {"sessionId": "s-1"})
    version = AgentRequestError("initialize", -32022, "Unsupported", {"requested": 2, "supported": [1]})
    assert agent_reason(missing) == "the agent has no session 's-1' (it was deleted, or never kept)"
    assert agent_reason(version) == "the agent does not speak ACP version 2; it speaks version(s) 1"
    assert agent_reason(AgentRequestError("x", -32002, "gone", {"uri": "f"})) is None  # not a session's
