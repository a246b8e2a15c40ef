"""The session reducer: how events build the transcript, tool cards, plan and status."""

from __future__ import annotations

import pytest

from webclient.acp.controls import ConfigOption
from webclient.acp.models import (
    AgentStatus,
    AuthMethod,
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
    SessionInfoEvent,
    SuggestionsEvent,
    TextPart,
    ToolCallContent,
    ToolCallEvent,
    ToolCallLocation,
    TurnAnswered,
    UsageEvent,
)
from webclient.domain.items import KEPT_REPEATS, MessageItem, NoticeItem, ToolCallItem
from webclient.domain.sidebar import KeptLink, SessionLink, Sidebar
from webclient.domain.sign_in import SignIn
from webclient.domain.state import Aspect, SessionState, TurnState


def chunk(role: str, text: str, message_id: str | None = None) -> MessageChunk:
    return MessageChunk(role=role, content=TextPart(text=text), message_id=message_id)  # type: ignore[arg-type]


def messages(state: SessionState) -> list[tuple[str, str]]:
    return [(i.role, i.text) for i in state.items if isinstance(i, MessageItem)]


def ready() -> SessionState:
    """A session whose agent is ready and whose `session/new` has answered."""
    state = SessionState(session_id="s-1")
    state.set_agent_status(AgentStatus.READY)
    return state


# --- messages -------------------------------------------------------------------------------------------


def test_chunks_of_one_role_merge_into_one_message() -> None:
    state = SessionState()
    first = state.apply(chunk("agent", "Hel"))
    second = state.apply(chunk("agent", "lo"))
    assert messages(state) == [("agent", "Hello")]
    assert first == second == {state.items[0].id}


def test_merged_text_chunks_become_one_text_part() -> None:
    state = SessionState()
    for piece in ("a", "b", "c"):
        state.apply(chunk("agent", piece))
    item = state.items[0]
    assert isinstance(item, MessageItem)
    assert item.parts == [TextPart(text="abc")]


def test_a_non_text_part_is_kept_between_text_parts() -> None:
    state = SessionState()
    image = ImagePart(mime_type="image/png", data="AA==")
    state.apply(chunk("agent", "see "))
    state.apply(MessageChunk(role="agent", content=image))
    state.apply(chunk("agent", "above"))
    item = state.items[0]
    assert isinstance(item, MessageItem)
    assert item.parts == [TextPart(text="see "), image, TextPart(text="above")]
    assert item.text == "see above"


def test_a_role_change_starts_a_new_message() -> None:
    state = SessionState()
    state.apply(chunk("thought", "hmm"))
    state.apply(chunk("agent", "answer"))
    state.apply(chunk("thought", "more"))
    assert messages(state) == [("thought", "hmm"), ("agent", "answer"), ("thought", "more")]
    assert len({i.id for i in state.items}) == 3


def test_a_different_message_id_starts_a_new_message() -> None:
    state = SessionState()
    state.apply(chunk("agent", "one", "m1"))
    state.apply(chunk("agent", " still one", "m1"))
    state.apply(chunk("agent", "two", "m2"))
    assert messages(state) == [("agent", "one still one"), ("agent", "two")]
    assert [i.message_id for i in state.items if isinstance(i, MessageItem)] == ["m1", "m2"]


def test_chunks_without_message_id_merge_with_a_message_that_has_one() -> None:
    state = SessionState()
    state.apply(chunk("agent", "a", "m1"))
    state.apply(chunk("agent", "b"))
    assert messages(state) == [("agent", "ab")]


def test_a_tool_call_between_agent_chunks_splits_the_message() -> None:
    state = SessionState()
    state.apply(chunk("agent", "before"))
    state.apply(ToolCallEvent(tool_call_id="t", is_update=False, title="Read"))
    state.apply(chunk("agent", "after"))
    assert [type(i) for i in state.items] == [MessageItem, ToolCallItem, MessageItem]


def test_a_notice_between_agent_chunks_splits_the_message() -> None:
    state = SessionState()
    state.apply(chunk("agent", "before"))
    state.apply(Notice(level=NoticeLevel.INFO, text="fyi"))
    state.apply(chunk("agent", "after"))
    assert messages(state) == [("agent", "before"), ("agent", "after")]


def test_the_end_of_a_turn_closes_the_open_message() -> None:
    state = ready()
    state.set_turn(TurnState.WORKING)
    state.apply(chunk("agent", "first turn"))
    state.set_turn(TurnState.IDLE)
    state.apply(chunk("agent", "second turn"))
    assert messages(state) == [("agent", "first turn"), ("agent", "second turn")]


def test_add_user_message_appends_a_user_item_and_closes_the_open_message() -> None:
    state = SessionState()
    state.apply(chunk("agent", "hi"))
    changed = state.add_user_message([TextPart(text="question")])
    state.apply(chunk("agent", "reply"))
    assert messages(state) == [("agent", "hi"), ("user", "question"), ("agent", "reply")]
    user = state.items[1]
    assert changed == {user.id, Aspect.DETAILS}  # the untitled session is named after it
    assert isinstance(user, MessageItem)
    assert user.auto_sent is False


def test_add_user_message_records_an_auto_sent_suggestion() -> None:
    state = SessionState()
    state.add_user_message([TextPart(text="run tests")], auto_sent=True)
    item = state.items[0]
    assert isinstance(item, MessageItem)
    assert item.auto_sent is True


def test_add_user_message_copies_the_parts_list() -> None:
    state = SessionState()
    parts: list[ContentPart] = [TextPart(text="a")]
    state.add_user_message(parts)
    parts.append(TextPart(text="b"))
    assert messages(state) == [("user", "a")]


def test_user_message_chunks_from_the_agent_merge_like_any_role() -> None:
    state = SessionState()
    state.apply(chunk("user", "replayed "))
    state.apply(chunk("user", "history"))
    assert messages(state) == [("user", "replayed history")]


def test_item_ids_are_unique_and_findable() -> None:
    state = SessionState()
    state.apply(chunk("agent", "a"))
    state.add_notice(Notice(level=NoticeLevel.WARNING, text="w"))
    ids = [i.id for i in state.items]
    assert len(set(ids)) == 2
    assert state.item(ids[1]) is state.items[1]
    assert state.item("nope") is None


# --- tool calls -----------------------------------------------------------------------------------------


def test_tool_call_then_update_merge_into_one_card_by_tool_call_id() -> None:
    state = SessionState()
    first = state.apply(ToolCallEvent(tool_call_id="t1", is_update=False, title="Read a.py", kind="read"))
    second = state.apply(ToolCallEvent(tool_call_id="t1", is_update=True, status="completed"))
    assert len(state.items) == 1
    card = state.items[0]
    assert isinstance(card, ToolCallItem)
    assert first == second == {card.id}
    assert (card.title, card.kind, card.status) == ("Read a.py", "read", "completed")


def test_tool_call_update_overwrites_only_the_fields_it_sends() -> None:
    state = SessionState()
    content = (ToolCallContent(kind="terminal", terminal_id="term"),)
    locations = (ToolCallLocation(path="/w/a.py", line=3),)
    state.apply(
        ToolCallEvent(
            tool_call_id="t1",
            is_update=False,
            title="Run",
            kind="execute",
            status="pending",
            content=content,
            locations=locations,
            raw_input={"cmd": "ls"},
        )
    )
    state.apply(ToolCallEvent(tool_call_id="t1", is_update=True, status="in_progress", raw_output={"rc": 0}))
    card = state.items[0]
    assert isinstance(card, ToolCallItem)
    assert card.title == "Run"
    assert card.kind == "execute"
    assert card.status == "in_progress"
    assert card.content == list(content)
    assert card.locations == locations
    assert card.raw_input == {"cmd": "ls"}
    assert card.raw_output == {"rc": 0}


def test_tool_call_update_with_empty_content_replaces_the_content() -> None:
    state = SessionState()
    content = (ToolCallContent(kind="content", content=TextPart(text="x")),)
    state.apply(ToolCallEvent(tool_call_id="t", is_update=False, title="T", content=content))
    state.apply(ToolCallEvent(tool_call_id="t", is_update=True, content=()))
    card = state.items[0]
    assert isinstance(card, ToolCallItem)
    assert card.content == []


def test_two_tool_call_ids_make_two_cards_and_updates_find_their_own() -> None:
    state = SessionState()
    state.apply(ToolCallEvent(tool_call_id="a", is_update=False, title="A"))
    state.apply(ToolCallEvent(tool_call_id="b", is_update=False, title="B"))
    state.apply(ToolCallEvent(tool_call_id="a", is_update=True, status="failed"))
    cards = [i for i in state.items if isinstance(i, ToolCallItem)]
    assert [(c.tool_call_id, c.status) for c in cards] == [("a", "failed"), ("b", None)]


def test_an_update_for_an_unseen_tool_call_creates_its_card() -> None:
    state = SessionState()
    state.apply(ToolCallEvent(tool_call_id="late", is_update=True, status="in_progress"))
    card = state.items[0]
    assert isinstance(card, ToolCallItem)
    assert (card.tool_call_id, card.title, card.status) == ("late", "", "in_progress")


def test_a_tool_call_update_keeps_the_card_in_its_original_place() -> None:
    state = SessionState()
    state.apply(ToolCallEvent(tool_call_id="t", is_update=False, title="T"))
    state.apply(chunk("agent", "meanwhile"))
    state.apply(ToolCallEvent(tool_call_id="t", is_update=True, status="completed"))
    assert [type(i) for i in state.items] == [ToolCallItem, MessageItem]


# --- plan and header regions ----------------------------------------------------------------------------


def test_plan_is_replaced_whole() -> None:
    state = SessionState()
    old = (
        PlanEntry(content="a", priority="high", status="pending"),
        PlanEntry(content="b", priority="low", status="pending"),
    )
    new = (PlanEntry(content="c", priority="medium", status="in_progress"),)
    assert state.apply(PlanEvent(entries=old)) == {Aspect.PLAN}
    assert state.apply(PlanEvent(entries=new)) == {Aspect.PLAN}
    assert state.plan == new


def test_an_empty_plan_clears_the_plan() -> None:
    state = SessionState()
    state.apply(PlanEvent(entries=(PlanEntry(content="a", priority="high", status="pending"),)))
    state.apply(PlanEvent(entries=()))
    assert state.plan == ()


def test_header_events_update_their_fields_and_mark_the_header() -> None:
    state = SessionState()
    commands = (Command(name="web", description="search", input_hint="q"),)
    toggle = ConfigOption(id="m", name="M", kind="boolean", current=False)
    assert state.apply(CommandsEvent(commands=commands)) == {Aspect.COMMANDS}
    assert state.apply(ModeEvent(current_mode_id="code")) == {Aspect.DETAILS}
    assert state.apply(ConfigOptionsEvent(options=(toggle,))) == {Aspect.DETAILS}
    usage = UsageEvent(used=1, size=10)
    assert state.apply(usage) == {Aspect.DETAILS}
    assert state.commands == commands
    assert state.current_mode_id == "code"
    assert state.config_options == (toggle,)
    assert state.usage == usage
    assert state.items == []


def test_session_info_sets_the_title() -> None:
    state = SessionState()
    assert state.apply(SessionInfoEvent(title="Refactor")) == {Aspect.DETAILS}
    assert state.title == "Refactor"


def test_session_info_without_a_title_keeps_the_title() -> None:
    state = SessionState(title="Kept")
    state.apply(SessionInfoEvent(updated_at="2025-01-01T00:00:00Z"))
    assert state.title == "Kept"


def test_session_info_with_a_null_title_clears_the_title() -> None:
    state = SessionState(title="Old")
    state.apply(SessionInfoEvent(title=None))
    assert state.title is None


def test_suggestions_do_not_change_the_transcript() -> None:
    state = SessionState()
    assert state.apply(SuggestionsEvent()) == set()
    assert state.items == []


def test_an_unknown_event_type_is_a_programming_error() -> None:
    with pytest.raises(TypeError):
        state = SessionState()
        state.apply("not an event")  # type: ignore[arg-type]


# --- notices --------------------------------------------------------------------------------------------


def test_notices_are_appended_in_order() -> None:
    state = SessionState()
    one = Notice(level=NoticeLevel.WARNING, text="one")
    two = Notice(level=NoticeLevel.ERROR, text="two", detail="trace")
    changed = state.apply(one)
    state.add_notice(two)
    assert [i.notice for i in state.items if isinstance(i, NoticeItem)] == [one, two]
    assert changed == {state.items[0].id}


# --- status and turns -----------------------------------------------------------------------------------


def test_a_new_session_is_starting_and_cannot_prompt() -> None:
    state = SessionState()
    assert state.display_status == "starting"
    assert state.can_prompt is False


def test_ready_and_idle_can_prompt() -> None:
    state = ready()
    assert state.display_status == "ready"
    assert state.can_prompt is True


@pytest.mark.parametrize(
    "turn, shown", [(TurnState.WORKING, "working"), (TurnState.CANCELLING, "cancelling")]
)
def test_a_running_turn_shows_the_turn_and_blocks_prompts(turn: TurnState, shown: str) -> None:
    state = ready()
    assert state.set_turn(turn) == {Aspect.STATUS}
    assert state.display_status == shown
    assert state.can_prompt is False


@pytest.mark.parametrize(
    "status, shown",
    [
        (AgentStatus.STARTING, "starting"),
        (AgentStatus.AUTH_REQUIRED, "auth-required"),
        (AgentStatus.EXITED, "exited"),
    ],
)
def test_an_agent_that_is_not_ready_shows_its_lifecycle_and_cannot_prompt(
    status: AgentStatus, shown: str
) -> None:
    state = SessionState()
    assert state.set_agent_status(status) == {Aspect.STATUS}
    assert state.display_status == shown
    assert state.can_prompt is False


def test_the_agent_status_wins_over_a_turn_when_the_agent_is_not_ready() -> None:
    state = ready()
    state.set_turn(TurnState.WORKING)
    state.agent_status = AgentStatus.AUTH_REQUIRED
    assert state.display_status == "auth-required"


def test_agent_exit_ends_the_running_turn() -> None:
    state = ready()
    state.set_turn(TurnState.WORKING)
    state.set_agent_status(AgentStatus.EXITED)
    assert state.turn is TurnState.IDLE
    assert state.display_status == "exited"


def test_a_restarted_agent_that_is_ready_can_prompt_again() -> None:
    state = ready()
    state.set_turn(TurnState.WORKING)
    state.set_agent_status(AgentStatus.EXITED)
    state.set_agent_status(AgentStatus.STARTING)
    assert state.can_prompt is False
    state.set_agent_status(AgentStatus.READY)
    assert state.can_prompt is True


def test_a_full_turn_goes_working_cancelling_idle() -> None:
    state = ready()
    shown = []
    for turn in (TurnState.WORKING, TurnState.CANCELLING, TurnState.IDLE):
        state.set_turn(turn)
        shown.append((state.display_status, state.can_prompt))
    assert shown == [("working", False), ("cancelling", False), ("ready", True)]


def test_auth_methods_are_stored_and_mark_the_auth_region_and_the_status() -> None:
    state = SessionState()
    methods = (AuthMethod(id="login", name="Log in"),)
    assert state.set_sign_in(SignIn(methods=methods)) == {Aspect.SIGN_IN, Aspect.STATUS}
    assert state.auth_methods == methods


def test_a_turn_the_agent_would_not_cancel_is_unresponsive_until_it_ends() -> None:
    state = SessionState(session_id="s-1")
    state.set_agent_status(AgentStatus.READY)
    shown = []
    for turn in (TurnState.CANCELLING, TurnState.UNRESPONSIVE, TurnState.IDLE):
        state.set_turn(turn)
        shown.append((state.display_status, state.can_prompt))
    assert shown == [("cancelling", False), ("unresponsive", False), ("ready", True)]


def test_a_repeated_notice_counts_up_until_the_user_sends_a_prompt() -> None:
    state = SessionState()
    first = state.add_notice(Notice(level=NoticeLevel.WARNING, text="not JSON-RPC", detail="a"))
    assert state.add_notice(Notice(level=NoticeLevel.WARNING, text="not JSON-RPC", detail="b")) == first
    [item] = [i for i in state.items if isinstance(i, NoticeItem)]
    assert (item.count, [n.detail for n in item.all]) == (2, ["a", "b"])

    state.add_notice(Notice(level=NoticeLevel.ERROR, text="not JSON-RPC"))  # another level: its own
    state.add_notice(Notice(level=NoticeLevel.WARNING, text="not JSON-RPC"))  # not the last one any more
    assert [i.count for i in state.items if isinstance(i, NoticeItem)] == [2, 1, 1]

    state.add_user_message([TextPart(text="go")])
    state.add_notice(Notice(level=NoticeLevel.WARNING, text="not JSON-RPC"))
    assert [i.count for i in state.items if isinstance(i, NoticeItem)] == [2, 1, 1, 1]


def test_a_notice_repeated_without_end_keeps_its_count_and_only_the_latest_repeats() -> None:
    state = SessionState()
    for n in range(1000):
        state.add_notice(Notice(level=NoticeLevel.WARNING, text="not JSON-RPC", detail=str(n)))
    [item] = [i for i in state.items if isinstance(i, NoticeItem)]
    assert item.count == 1000
    assert [n.detail for n in item.all] == ["0", *(str(n) for n in range(1000 - KEPT_REPEATS, 1000))]


def test_a_ready_agent_shows_opening_until_the_session_exists() -> None:
    state = SessionState()
    state.set_agent_status(AgentStatus.READY)
    assert state.display_status == "opening"
    state.session_id = "s-1"
    assert state.display_status == "ready"


def test_a_chunk_after_the_turns_answer_starts_a_new_message() -> None:
    state = SessionState()
    state.apply(chunk("agent", "You said: hello"))
    state.apply(TurnAnswered(stop_reason="end_turn"))  # v1: before the turn task has ended the turn
    state.apply(chunk("agent", "Warning: ..."))
    assert messages(state) == [("agent", "You said: hello"), ("agent", "Warning: ...")]


@pytest.mark.parametrize(
    "between",
    [
        PlanEvent(entries=(PlanEntry(content="step", priority="medium", status="pending"),)),
        CommandsEvent(commands=()),
        ModeEvent(current_mode_id="plan"),
        ConfigOptionsEvent(options=()),
    ],
)
def test_another_update_kind_between_chunks_starts_a_new_message(between: object) -> None:
    state = SessionState()
    state.apply(chunk("agent", "one"))
    state.apply(between)  # type: ignore[arg-type]
    state.apply(chunk("agent", "two"))
    assert messages(state) == [("agent", "one"), ("agent", "two")]


@pytest.mark.parametrize(
    "between",
    [
        SessionInfoEvent(title="A title"),
        UsageEvent(used=10, size=100),
    ],
)
def test_a_title_or_the_usage_between_chunks_keeps_the_message_open(between: object) -> None:
    state = SessionState()
    state.apply(chunk("agent", "one "))
    state.apply(between)  # type: ignore[arg-type]
    state.apply(chunk("agent", "two"))
    assert messages(state) == [("agent", "one two")]


def test_each_failure_of_the_agent_has_one_card_that_restarts_update_in_place() -> None:
    state = SessionState()
    crash = Notice(level=NoticeLevel.ERROR, text="agent exited with code 7", detail="no config")
    restarting = Notice(level=NoticeLevel.INFO, text="restarting the agent")
    [card_id] = state.add_notice(crash, failure=True)
    assert state.add_notice(restarting, failure=True) == {card_id}
    card = state.item(card_id)
    assert isinstance(card, NoticeItem) and card.failure and card.restarting
    assert state.add_notice(crash, failure=True) == {card_id}  # it failed again: attempt 2, same card
    assert card.count == 2 and not card.restarting and card.note == ""
    state.add_notice(restarting, failure=True)
    assert card.settled_at is None
    again = Notice(level=NoticeLevel.INFO, text="running again")
    assert state.transcript.settle_failure(again, at=1_700_000_000.0) == {card_id}
    assert card.note == "running again" and not card.restarting and card.settled_at == 1_700_000_000.0
    assert len(state.items) == 1
    state.add_user_message([TextPart(text="hello")])
    assert state.add_notice(crash, failure=True) != {card_id}  # after a prompt, a new failure: a new card
    # A restart with no failure card is a notice of its own.
    assert len(SessionState().add_notice(restarting, failure=True)) == 1


def test_the_sessions_and_the_stored_copies_of_the_sidebar_change_apart() -> None:
    """A session's state changes at every turn; the copies listed beside it (up to 200) do not, and are
    not sent again for it."""
    state = SessionState()
    copies = tuple(KeptLink(key=f"k{i}", title=f"copy {i}", agent="demo", saved_at=i) for i in range(3))
    working = (SessionLink(local_id="s1", title="one", status="working", current=True),)
    assert state.set_sidebar(Sidebar(live=working, kept=copies)) == {Aspect.SESSIONS, Aspect.KEPT_COPIES}
    ready = (SessionLink(local_id="s1", title="one", status="ready", current=True),)
    assert state.set_sidebar(Sidebar(live=ready, kept=copies)) == {Aspect.SESSIONS}
    assert state.set_sidebar(Sidebar(live=ready, kept=copies[1:])) == {Aspect.KEPT_COPIES}
    assert state.set_sidebar(Sidebar(live=ready, kept=copies[1:])) == set()
