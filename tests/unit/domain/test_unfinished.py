"""A turn that ends with tool calls still open: the cards say "not finished", and why, once."""

from __future__ import annotations

from webclient.acp.models import NoticeLevel, ToolCallEvent
from webclient.domain.items import ToolCallItem
from webclient.domain.state import SessionState
from webclient.domain.unfinished import report, written_since


def cards(state: SessionState) -> dict[str, tuple[str | None, bool]]:
    return {i.tool_call_id: (i.status, i.unfinished) for i in state.items if isinstance(i, ToolCallItem)}


def test_the_end_of_a_turn_leaves_open_cards_not_finished_and_finished_ones_as_they_are() -> None:
    state = SessionState()
    state.apply(ToolCallEvent(tool_call_id="a", is_update=False, title="ls", status="in_progress"))
    state.apply(ToolCallEvent(tool_call_id="b", is_update=False, title="rm", status="pending"))
    state.apply(ToolCallEvent(tool_call_id="c", is_update=False, title="cat", status="completed"))
    assert [c.title for c in state.transcript.open_tool_calls()] == ["ls", "rm"]
    changed = state.end_turn()
    assert cards(state) == {"a": ("in_progress", True), "b": ("pending", True), "c": ("completed", False)}
    assert {i.id for i in state.items if isinstance(i, ToolCallItem) and i.unfinished} <= changed
    assert state.transcript.open_tool_calls() == []  # said once: the next turn's end leaves them be


def test_a_late_update_with_a_status_shows_the_agents_word_again() -> None:
    state = SessionState()
    state.apply(ToolCallEvent(tool_call_id="a", is_update=False, title="ls", status="in_progress"))
    state.end_turn()
    state.apply(ToolCallEvent(tool_call_id="a", is_update=True, status="completed"))
    assert cards(state) == {"a": ("completed", False)}


def test_only_the_lines_written_since_the_turn_began_are_reported() -> None:
    assert written_since(["a", "b", "c"], ["b", "c", "d", "e"]) == ["d", "e"]
    assert written_since(["a"], ["a"]) == []
    assert written_since([], ["x"]) == ["x"]
    assert written_since(["a", "b"], ["x", "y"]) == ["x", "y"]  # more lines than the tail keeps


def test_the_report_names_the_calls_and_carries_the_log_lines() -> None:
    note, notice = report(["cargo test"], ["ERROR codex_core::exec: sandbox error"])
    assert "'cargo test'" in note and "not finished" in note
    assert notice.level is NoticeLevel.WARNING
    assert notice.text == "the agent ended its turn without finishing 'cargo test'"
    assert notice.detail is not None and notice.detail.endswith("ERROR codex_core::exec: sandbox error")
    _, quiet = report([f"t{i}" for i in range(7)], [])
    assert quiet.detail is None and quiet.text.endswith("and 2 more")
