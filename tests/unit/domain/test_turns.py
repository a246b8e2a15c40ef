"""A session's prompts and turns, without an agent process: what is refused, what waits, what is taken
back. (Turns at a real agent: the integration tests of prompts, cancels and the prompt queue.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from webclient.acp.models import AgentStatus, NoticeLevel, TextPart
from webclient.domain.changes import PendingChanges
from webclient.domain.files import FileAccess
from webclient.domain.items import NoticeItem
from webclient.domain.live_session import LiveSession
from webclient.domain.state import Aspect, TurnState
from webclient.domain.suggestions import SuggestionPolicy
from webclient.errors import Refused


def session(tmp_path: Path) -> LiveSession[PendingChanges]:
    return LiveSession(
        "s1", PendingChanges.factory, SuggestionPolicy(advertised=True), FileAccess([tmp_path])
    )


def test_an_empty_prompt_is_refused_and_nothing_waits(tmp_path: Path) -> None:
    live = session(tmp_path)

    with pytest.raises(Refused, match="an empty prompt was not sent"):
        live.turns.submit([])
    assert len(live.state.waiting.prompts) == 0 and live.state.items == []


async def test_with_nothing_running_there_is_nothing_to_cancel(tmp_path: Path) -> None:
    live = session(tmp_path)
    live.set_agent_status(AgentStatus.READY)

    with pytest.raises(Refused, match="nothing to cancel"):
        await live.turns.cancel()
    assert live.state.turn is TurnState.IDLE


def test_a_prompt_is_refused_while_the_agent_starts_and_one_that_waits_can_be_taken_back(
    tmp_path: Path,
) -> None:
    live = session(tmp_path)
    with pytest.raises(Refused, match="cannot take a prompt now"):
        live.submit_prompt([TextPart(text="too early")])

    live.set_agent_status(AgentStatus.READY)
    live.state.begin_turn([TextPart(text="first")])  # a v1 turn runs: the next prompt waits for its end
    live.viewers.take()
    live.submit_prompt([TextPart(text="hello")])
    [waiting] = live.state.waiting.prompts
    assert waiting.text == "hello" and Aspect.QUEUE in live.viewers.take()

    assert live.turns.take_back(waiting.id).text == "hello"
    assert len(live.state.waiting.prompts) == 0
    with pytest.raises(Refused):
        live.turns.take_back(waiting.id)  # gone already


def test_dropping_the_prompt_that_waits_for_the_session_says_so_only_when_one_waits(tmp_path: Path) -> None:
    live = session(tmp_path)

    live.turns.drop_queued("the agent is not running")

    assert not [
        i for i in live.state.items if isinstance(i, NoticeItem) and i.notice.level is NoticeLevel.WARNING
    ]
