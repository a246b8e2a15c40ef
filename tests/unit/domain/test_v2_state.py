"""SessionState under ACP v2: messages by id, the agent's copy of our prompt, patches, terminals, plans."""

from __future__ import annotations

from webclient.acp.controls import ConfigChoice, ConfigGroup, ConfigOption
from webclient.acp.models import (
    AgentStatus,
    MessageChunk,
    MessageUpsert,
    PlanEntry,
    PlanEvent,
    TerminalEvent,
    TerminalExit,
    TextPart,
    ToolCallContent,
    ToolCallEvent,
)
from webclient.domain.items import MessageItem
from webclient.domain.state import SessionState, TurnState


def v2_state() -> SessionState:
    return SessionState(session_id="s", agent_status=AgentStatus.READY, protocol_version=2)


def text(value: str) -> TextPart:
    return TextPart(text=value)


def users(state: SessionState) -> list[MessageItem]:
    return [i for i in state.items if isinstance(i, MessageItem) and i.role == "user"]


def test_our_prompt_waits_until_the_agent_inserts_it_and_its_copy_takes_the_place_of_ours() -> None:
    state = v2_state()
    state.add_user_message([text("first")])
    state.add_user_message([text("second")])
    assert [u.pending for u in users(state)] == [True, True] and state.pending_prompts == 2
    local_first = users(state)[0].id
    state.apply(MessageUpsert(role="user", message_id="u1", parts=(text("first, as the agent has it"),)))
    state.apply(MessageChunk(role="user", content=text("sec"), message_id="u2"))
    state.apply(MessageChunk(role="user", content=text("ond"), message_id="u2"))
    first, second = users(state)
    assert first.id == local_first and first.message_id == "u1" and first.text == "first, as the agent has it"
    assert second.text == "second" and not second.pending  # the chunks replaced our copy, then appended
    assert state.pending_prompts == 0 and len(users(state)) == 2


def test_a_user_message_with_no_prompt_waiting_is_a_message_of_its_own() -> None:
    state = v2_state()
    state.apply(MessageUpsert(role="user", message_id="h1", parts=(text("from history"),)))
    assert [u.text for u in users(state)] == ["from history"]


def test_chunks_append_to_their_own_message_whatever_came_between() -> None:
    state = v2_state()
    state.apply(MessageChunk(role="agent", content=text("one "), message_id="a"))
    state.apply(MessageChunk(role="agent", content=text("other"), message_id="b"))
    state.apply(MessageChunk(role="agent", content=text("two"), message_id="a"))
    assert [(m.message_id, m.text) for m in state.items if isinstance(m, MessageItem)] == [
        ("a", "one two"),
        ("b", "other"),
    ]


def test_v1_prompts_are_never_pending_and_v1_allows_one_turn_at_a_time() -> None:
    v1 = SessionState(session_id="s", agent_status=AgentStatus.READY)
    v1.add_user_message([text("hi")])
    assert not users(v1)[0].pending
    v1.set_turn(TurnState.WORKING)
    assert not v1.can_prompt
    v2 = v2_state()
    v2.set_turn(TurnState.WORKING)
    assert v2.can_prompt  # a v2 agent takes a prompt in any state
    v2.set_turn(TurnState.CANCELLING)
    assert not v2.can_prompt


def test_a_tool_call_patch_clears_what_was_sent_as_null_and_a_chunk_appends() -> None:
    state = v2_state()
    state.apply(
        ToolCallEvent(tool_call_id="t", is_update=True, title="Read", raw_input={"a": 1}, status="pending")
    )
    state.apply(ToolCallEvent(tool_call_id="t", is_update=True, cleared=frozenset({"raw_input", "title"})))
    item = ToolCallContent(kind="content", content=text("x"))
    state.apply(ToolCallEvent(tool_call_id="t", is_update=True, appended=(item, item)))
    card = state.tool_card("t")
    assert card is not None and card.title == "" and card.raw_input is None and card.status == "pending"
    assert len(card.content) == 2


def test_a_terminal_snapshot_replaces_and_chunks_append() -> None:
    state = v2_state()
    state.apply(
        ToolCallEvent(
            tool_call_id="t", is_update=True, content=(ToolCallContent(kind="terminal", terminal_id="x"),)
        )
    )
    changed = state.apply(TerminalEvent(terminal_id="x", command="make", appended="a"))
    assert changed == {state.tool_card("t").id}  # type: ignore[union-attr]
    state.apply(TerminalEvent(terminal_id="x", appended="b"))
    assert state.terminals["x"].output == "ab" and state.terminals["x"].command == "make"
    state.apply(TerminalEvent(terminal_id="x", output="fresh", exit=TerminalExit(exit_code=1)))
    assert state.terminals["x"].output == "fresh" and state.terminals["x"].exit == TerminalExit(exit_code=1)


def test_plans_by_id_each_replace_only_themselves() -> None:
    state = v2_state()
    entry = PlanEntry(content="a", priority="high", status="pending")
    state.apply(PlanEvent(entries=(entry,), plan_id="p1"))
    state.apply(PlanEvent(entries=(entry.model_copy(update={"content": "b"}),), plan_id="p2"))
    state.apply(PlanEvent(entries=(entry.model_copy(update={"status": "completed"}),), plan_id="p1"))
    assert [(e.content, e.status) for e in state.plan] == [("a", "completed"), ("b", "pending")]


def test_the_modes_of_a_v2_agent_are_its_mode_config_options_choices() -> None:
    state = v2_state()
    mode = ConfigOption(
        id="mode",
        name="Mode",
        kind="select",
        current="ask",
        category="mode",
        groups=(
            ConfigGroup(
                name=None,
                choices=(ConfigChoice(value="ask", name="Ask"), ConfigChoice(value="code", name="Code")),
            ),
        ),
    )
    state.set_config_options((mode,))
    assert state.mode_names == ("Ask", "Code") and not state.shows_mode_selector
