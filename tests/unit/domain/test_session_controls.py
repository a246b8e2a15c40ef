"""A session's modes and config options, without an agent process: what is refused before the agent
is asked, and the page's selector put back on what is in force. (The agent's side:
tests/integration/test_session_controls.py.)"""

from __future__ import annotations

from typing import cast

import pytest

from webclient.acp.controls import ConfigChoice, ConfigGroup, ConfigOption, Mode
from webclient.acp.link import AgentLink
from webclient.domain.session_controls import SessionControls
from webclient.domain.state import Aspect, SessionState
from webclient.errors import Refused

# Never asked: every request here is refused before the agent would be.
UNUSED_AGENT = cast(AgentLink, object())


def controls(marked: list[set[str]], *, connected: bool = True) -> tuple[SessionControls, SessionState]:
    state = SessionState()
    state.set_modes((Mode(id="ask", name="Ask"),), "ask")
    choices = (ConfigGroup(name=None, choices=(ConfigChoice(value="fast", name="Fast"),)),)
    state.set_config_options(
        (ConfigOption(id="model", name="Model", kind="select", current="fast", groups=choices),)
    )

    def session(verb: str) -> tuple[AgentLink, str]:
        if not connected:
            raise Refused(f"there is no session to {verb} yet")
        return UNUSED_AGENT, "a1"

    return SessionControls(state, lambda keys: marked.append(set(keys)), session), state


async def test_a_mode_the_agent_did_not_offer_is_refused_and_the_selector_goes_back() -> None:
    marked: list[set[str]] = []
    session, state = controls(marked)

    with pytest.raises(Refused, match="does not offer a mode 'code'; the mode stays as it was"):
        await session.set_mode("code")
    assert state.current_mode_id == "ask" and marked == [{Aspect.DETAILS}]


async def test_a_value_the_option_does_not_offer_is_refused_and_changes_nothing() -> None:
    marked: list[set[str]] = []
    session, state = controls(marked)

    with pytest.raises(Refused, match="does not offer 'slow' for 'Model'; nothing was changed"):
        await session.set_config_option("model", "slow")
    with pytest.raises(Refused, match="does not offer an option 'effort'"):
        await session.set_config_option("effort", True)
    assert state.config_options[0].current == "fast" and marked == [{Aspect.DETAILS}, {Aspect.DETAILS}]


async def test_nothing_is_switched_before_the_session_exists() -> None:
    session, _ = controls([], connected=False)

    with pytest.raises(Refused, match="no session to switch the mode of yet"):
        await session.set_mode("ask")
    with pytest.raises(Refused, match="no session to configure yet"):
        await session.set_config_option("model", "fast")
