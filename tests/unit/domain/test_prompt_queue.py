"""Prompts sent while the agent cannot take one wait, in order, and can be taken back; the rest is refused
with a reason (the turn that sends them is tested with a real agent in e2e/test_prompt_queue.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from webclient.acp.models import AgentStatus, PromptBlock, Suggestion, TextPart
from webclient.domain.changes import PendingChanges
from webclient.domain.files import FileAccess
from webclient.domain.items import MessageItem
from webclient.domain.live_session import LiveSession
from webclient.domain.prompt_queue import MAX_WAITING, PromptQueue
from webclient.domain.state import Aspect, SessionState
from webclient.domain.suggestions import SuggestionPolicy
from webclient.errors import Refused


def blocks(text: str) -> tuple[PromptBlock, ...]:
    return (PromptBlock(part=TextPart(text=text)),)


def working() -> SessionState:
    state = SessionState(session_id="a1")
    state.set_agent_status(AgentStatus.READY)
    state.begin_turn([TextPart(text="first")])
    return state


def test_prompts_wait_in_the_order_they_were_sent_and_go_out_first_first() -> None:
    state = working()
    assert state.waiting.hold(state, blocks("second"), auto_sent=False) == {Aspect.QUEUE}
    state.waiting.hold(state, blocks("third"), auto_sent=False)
    assert [p.text for p in state.waiting.prompts] == ["second", "third"]
    first = state.waiting.next()
    assert first is not None and first.text == "second"
    assert [p.text for p in state.waiting.prompts] == ["third"]


def test_a_waiting_prompt_taken_back_leaves_the_others_and_cannot_be_taken_twice() -> None:
    state = working()
    state.waiting.hold(state, blocks("a"), auto_sent=False)
    state.waiting.hold(state, blocks("b"), auto_sent=False)
    a = state.waiting.prompts[0]
    taken, changed = state.waiting.take(a.id)
    assert (taken.text, changed) == ("a", {Aspect.QUEUE})
    assert [p.text for p in state.waiting.prompts] == ["b"]
    with pytest.raises(Refused, match="no longer waiting"):
        state.waiting.take(a.id)


def test_nothing_waits_when_no_turn_runs_or_the_agent_is_not_ready() -> None:
    idle = SessionState(session_id="a1")
    idle.set_agent_status(AgentStatus.READY)
    with pytest.raises(Refused, match=r"cannot take a prompt now \(ready\)"):
        idle.waiting.hold(idle, blocks("x"), auto_sent=False)
    exited = working()
    exited.set_agent_status(AgentStatus.EXITED)
    with pytest.raises(Refused, match="cannot take a prompt now"):
        exited.waiting.hold(exited, blocks("x"), auto_sent=False)
    assert idle.waiting.prompts == () and exited.waiting.prompts == ()


def test_an_auto_sent_suggestion_never_waits() -> None:
    state = working()
    with pytest.raises(Refused, match="not sent on its own"):
        state.waiting.hold(state, blocks("x"), auto_sent=True)
    assert state.waiting.prompts == ()


def test_a_full_queue_refuses_one_more_and_says_so() -> None:
    state = working()
    for n in range(MAX_WAITING):
        state.waiting.hold(state, blocks(str(n)), auto_sent=False)
    with pytest.raises(Refused, match=f"{MAX_WAITING} prompts already wait"):
        state.waiting.hold(state, blocks("one more"), auto_sent=False)
    assert len(state.waiting.prompts) == MAX_WAITING


def test_a_waiting_prompt_keeps_its_blocks_as_they_will_go_out() -> None:
    queue = PromptQueue()
    state = working()
    original = {"type": "text", "text": "Run the tests", "_meta": {"id": 7}}
    block = PromptBlock(part=TextPart(text="Run the tests"), original=original)
    queue.hold(state, (block,), auto_sent=False)
    assert queue.prompts[0].blocks == (block,)


def live_session(tmp_path: Path) -> LiveSession[PendingChanges]:
    live = LiveSession(
        "s1", PendingChanges.factory, SuggestionPolicy(advertised=True), FileAccess([tmp_path])
    )
    live.state.set_agent_status(AgentStatus.READY)
    live.state.begin_turn([TextPart(text="first")])  # a v1 turn runs: the agent takes no other prompt
    return live


def test_a_prompt_sent_while_a_v1_turn_runs_waits_instead_of_being_refused(tmp_path: Path) -> None:
    live = live_session(tmp_path)
    live.submit_prompt([TextPart(text="second")])
    assert [p.text for p in live.state.waiting.prompts] == ["second"]
    assert [i.text for i in live.state.items if isinstance(i, MessageItem) and i.role == "user"] == ["first"]
    taken = live.take_back(live.state.waiting.prompts[0].id)
    assert taken.text == "second" and live.state.waiting.prompts == ()


def test_a_suggestion_chosen_while_a_turn_runs_waits_but_one_auto_sent_is_refused(tmp_path: Path) -> None:
    live = live_session(tmp_path)
    chip = Suggestion(
        parts=(TextPart(text="Run the tests"),), wire=({"type": "text", "text": "Run the tests"},)
    )
    live.state.set_suggestions((chip,))
    generation = live.state.suggestions_generation
    with pytest.raises(Refused, match="not sent on its own"):
        live.send_suggestion(generation, 0, auto_sent=True)
    live.send_suggestion(generation, 0)
    assert [p.text for p in live.state.waiting.prompts] == ["Run the tests"]
    assert live.state.waiting.prompts[0].blocks == chip.blocks  # sent later exactly as the agent wrote it
