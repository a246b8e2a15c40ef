"""The session state's named transitions: what each changes, and the change keys it reports.

And the permission desk, which asks through them: an answer or a withdrawal reaches the transcript
only while the request is pending.
"""

from __future__ import annotations

import asyncio

import pytest

from webclient.acp.controls import Mode
from webclient.acp.models import (
    AgentCapabilities,
    AgentInfo,
    AgentStatus,
    MessageChunk,
    OpenedSession,
    PermissionOption,
    PermissionRequest,
    PromptCapabilities,
    StateEvent,
    Suggestion,
    TextPart,
    ToolCallEvent,
)
from webclient.domain.items import MessageItem, PermissionItem, PermissionState, ToolCallItem
from webclient.domain.permissions import PermissionDesk
from webclient.domain.state import Aspect, SessionState, TurnState
from webclient.errors import Refused


def info(*, image: bool = False) -> AgentInfo:
    capabilities = AgentCapabilities(prompt=PromptCapabilities(image=image))
    return AgentInfo(protocol_version=2, name="demo", title="Demo", version="1.2", capabilities=capabilities)


def offer(text: str) -> Suggestion:
    return Suggestion(parts=(TextPart(text=text),), wire=())


def ask(session_id: str = "s-1") -> PermissionRequest:
    call = ToolCallEvent(tool_call_id="t-1", is_update=True, title="Edit")
    options = (PermissionOption(id="yes", name="Allow", kind="allow_once"),)
    return PermissionRequest(session_id=session_id, tool_call=call, options=options)


# --- the agent and its session --------------------------------------------------------------------------


def test_meeting_a_new_agent_process_forgets_the_old_ones_session_and_state() -> None:
    state = SessionState(session_id="old", agent_state="running")
    assert state.meet_agent(info(image=True), protocol_version=2) == {Aspect.DETAILS}
    assert (state.session_id, state.agent_state) == (None, None)
    assert (state.agent_name, state.agent_id, state.accepts_images) == ("Demo 1.2", "demo", True)
    assert state.protocol_version == 2 and state.keyed_messages


def test_reopening_a_stored_session_shows_its_id_and_stored_title_before_the_agent_answers() -> None:
    state = SessionState()
    assert state.reopen("kept-1", "Cart fixes") == {Aspect.DETAILS}
    assert (state.session_id, state.display_title) == ("kept-1", "Cart fixes")


def test_an_opened_session_takes_its_id_modes_and_options_and_offers_no_old_suggestions() -> None:
    state = SessionState()
    state.set_suggestions((offer("old"),))
    opened = OpenedSession(session_id="s-9", modes=(Mode(id="code", name="Code"),), current_mode_id="code")
    assert state.open(opened) == {Aspect.DETAILS, Aspect.SUGGESTIONS, Aspect.STATUS}
    assert (state.session_id, state.current_mode_id, state.suggestions) == ("s-9", "code", ())


# --- the turn -------------------------------------------------------------------------------------------


def test_a_turn_begins_with_the_prompt_and_ends_idle_with_no_prompt_left_pending() -> None:
    state = SessionState(session_id="s", protocol_version=2, agent_status=AgentStatus.READY)
    changed = state.begin_turn([TextPart(text="hi")])
    (prompt,) = state.items
    assert isinstance(prompt, MessageItem) and prompt.pending and prompt.id in changed
    assert state.display_status == "working"
    assert state.end_turn() == {Aspect.STATUS, prompt.id}
    assert state.turn is TurnState.IDLE and not prompt.pending


def test_cancelling_a_v2_turn_shows_its_unfinished_tool_calls_as_cancelled_at_once() -> None:
    state = SessionState(session_id="s", protocol_version=2)
    state.begin_turn([TextPart(text="go")])
    state.apply(ToolCallEvent(tool_call_id="t", is_update=False, title="Run", status="in_progress"))
    card = state.tool_card("t")
    assert isinstance(card, ToolCallItem)
    assert state.cancel_turn() == {Aspect.STATUS, card.id}
    assert (state.turn, card.status) == (TurnState.CANCELLING, "cancelled")
    assert state.ignore_cancel() == {Aspect.STATUS} and state.turn is TurnState.UNRESPONSIVE


def test_cancelling_a_v1_turn_leaves_the_tool_calls_to_the_agent() -> None:
    state = SessionState(session_id="s")
    state.apply(ToolCallEvent(tool_call_id="t", is_update=False, title="Run", status="in_progress"))
    assert state.cancel_turn() == {Aspect.STATUS}
    card = state.tool_card("t")
    assert card is not None and card.status == "in_progress"


def test_a_dropped_queued_prompt_leaves_the_session_idle() -> None:
    state = SessionState()
    state.begin_turn([TextPart(text="early")])
    state.set_queued(True)
    assert state.drop_queued() == {Aspect.STATUS}
    assert (state.queued, state.turn) == (False, TurnState.IDLE)


def test_a_replay_holds_prompts_back_and_its_end_starts_a_new_message_and_offers_nothing() -> None:
    state = SessionState(session_id="s")
    assert state.begin_replay() == {Aspect.STATUS} and not state.can_prompt
    state.apply(MessageChunk(role="agent", content=TextPart(text="replayed")))
    state.set_suggestions((offer("from the replay"),))
    assert state.end_replay() == {Aspect.SUGGESTIONS, Aspect.STATUS}
    state.apply(MessageChunk(role="agent", content=TextPart(text="live")))
    assert [i.text for i in state.items if isinstance(i, MessageItem)] == ["replayed", "live"]
    assert state.turn is TurnState.IDLE and state.suggestions == ()


def test_a_v2_state_update_is_an_event_like_any_other() -> None:
    state = SessionState()
    assert state.apply(StateEvent(state="requires_action")) == {Aspect.STATUS}
    assert state.agent_state == "requires_action"


# --- permission requests --------------------------------------------------------------------------------


def test_an_answer_or_a_withdrawal_changes_only_a_pending_request() -> None:
    state = SessionState()
    item = PermissionItem(request=ask())
    state.add_item(item)
    assert state.needs_answer
    assert state.answer_permission(item.id, "Allow") == {item.id}
    assert (item.state, item.chosen) == (PermissionState.ANSWERED, "Allow")
    assert state.withdraw_permission(item.id) == set() and item.state is PermissionState.ANSWERED
    assert state.answer_permission("perm-404", "Allow") == set() and not state.needs_answer


async def test_the_desk_hands_the_users_choice_to_the_asker_and_refuses_a_second_answer() -> None:
    state, marked, told = SessionState(), set[str](), []
    desk = PermissionDesk(state, marked.update, lambda: told.append(1))
    asking = asyncio.create_task(desk.ask(ask()))
    await asyncio.sleep(0)
    (item,) = state.items
    assert desk.waiting and item.id in marked
    desk.answer(item.id, "yes")
    assert (await asking).option_id == "yes"
    assert isinstance(item, PermissionItem) and item.chosen == "Allow" and not desk.waiting
    with pytest.raises(Refused):
        desk.answer(item.id, "yes")
    assert len(told) == 3  # asked, answered, and no longer waiting


async def test_the_end_of_a_turn_withdraws_only_the_questions_webclient_asked() -> None:
    state = SessionState()
    desk = PermissionDesk(state, lambda keys: None, lambda: None)
    agents = asyncio.create_task(desk.ask(ask()))
    ours = asyncio.create_task(desk.ask(ask(), ours=True))
    await asyncio.sleep(0)
    desk.cancel_ours()
    assert (await ours).option_id is None
    agent_item, our_item = state.items
    assert isinstance(our_item, PermissionItem) and our_item.state is PermissionState.CANCELLED
    assert isinstance(agent_item, PermissionItem) and state.needs_answer
    desk.close()
    assert (await agents).option_id is None and agent_item.state is PermissionState.CANCELLED
