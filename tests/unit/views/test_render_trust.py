"""The page's trust states: a protected write asked about with its path and diff, and a Restart in
every state the user could not leave otherwise."""

from __future__ import annotations

import pytest

from tests.support.html import tags, text
from webclient.acp.models import AgentStatus, AuthMethod
from webclient.domain.approval import ALLOW, REJECT, protected_write_request
from webclient.domain.items import PermissionItem
from webclient.domain.sign_in import SignIn
from webclient.domain.state import Aspect, SessionState, TurnState
from webclient.views import render

HOSTILE = '<img src=x onerror="alert(1)">\n'


def test_a_protected_write_shows_the_path_and_the_diff_as_text_with_allow_once_and_reject() -> None:
    request = protected_write_request("s", "/w/.git/config", "[core]\n", HOSTILE)
    item = PermissionItem(request=request, asked_by_client=True)
    html = render.item(SessionState(), item)
    found = tags(html)
    assert not [t for t in found if t.name == "img"]  # the agent's content is text, never markup
    assert "+" + HOSTILE.strip() in text(html) and "-[core]" in text(html)
    assert [t.attrs["data-option-id"] for t in found if "data-option-id" in t.attrs] == [ALLOW, REJECT]
    [location] = [t for t in found if t.attrs.get("data-testid") == "permission-location"]
    assert "/w/.git/config" in text(html) and location.name == "li"
    assert "The agent wants to change a protected file" in text(html)


@pytest.mark.parametrize(
    ("status", "turn", "methods", "label"),
    [
        (AgentStatus.EXITED, TurnState.IDLE, (), "Restart agent"),
        (AgentStatus.AUTH_REQUIRED, TurnState.IDLE, (AuthMethod(id="k", name="Key"),), "Restart agent"),
        (AgentStatus.AUTH_REQUIRED, TurnState.IDLE, (), "Restart agent"),  # a sign-in that never ends
        (AgentStatus.READY, TurnState.UNRESPONSIVE, (), "Stop and restart agent"),
        (AgentStatus.READY, TurnState.IDLE, (), None),
        (AgentStatus.READY, TurnState.CANCELLING, (), None),
    ],
)
def test_every_state_without_another_way_out_offers_a_restart(
    status: AgentStatus, turn: TurnState, methods: tuple[AuthMethod, ...], label: str | None
) -> None:
    state = SessionState()
    state.set_agent_status(status)
    state.set_turn(turn)
    state.set_sign_in(SignIn(methods=methods))
    html = render.region(state, Aspect.STATUS)
    restart = [t for t in tags(html) if t.attrs.get("data-testid") == "restart"]
    assert len(restart) == (0 if label is None else 1)
    if label is not None:
        assert label in text(html)
        assert restart[0].attrs["form"] == "restart-form"


def test_the_agents_own_request_does_not_repeat_the_diff_its_tool_call_card_shows() -> None:
    request = protected_write_request("s", "/w/app.py", "a\n", "b\n")
    state = SessionState()
    card = request.tool_call.model_copy(update={"is_update": False})
    state.apply(card)  # the agent's tool call, whose card shows this very diff
    html = render.item(state, PermissionItem(request=request))
    assert not [t for t in tags(html) if t.attrs.get("data-testid") == "permission-diff"]
    assert "The agent asks for permission" in text(html)
