"""Stopping one piece of an ACP v2 agent's work from the page: a tool call (`tool_call/cancel`) or a
terminal (`terminal/cancel`), only where the agent advertises `capabilities.cancel` and it still runs.

The agent answers once it accepted; the card's final status (or the terminal's exit) comes later as an
update, so nothing here changes the state itself.
"""

from __future__ import annotations

from typing import Any, Literal

from webclient.domain.live_session import LiveSession
from webclient.domain.reasons import error_detail, failure_text
from webclient.errors import AgentError, Refused


async def stop_work(live: LiveSession[Any], kind: Literal["tool_call", "terminal"], work_id: str) -> None:
    """Ask the agent to stop `work_id`; raises Refused when it cannot be stopped or the agent refuses."""
    state, agent = live.state, live.agent
    if agent is None or state.session_id is None:
        raise Refused("the agent is not running")
    if kind == "tool_call":
        card = state.tool_card(work_id)
        if card is None or not card.stoppable:
            raise Refused("this tool call cannot be stopped: the agent does not offer it, or it ended")
        ask = agent.cancel_tool_call
    else:  # the same call, with the terminal's id
        terminal = state.terminals.get(work_id)
        if terminal is None or not terminal.cancellable or terminal.exit is not None:
            raise Refused("this terminal cannot be stopped: the agent does not offer it, or it exited")
        ask = agent.cancel_terminal  # type: ignore[assignment]  # same signature, other parameter name
    try:
        await ask(state.session_id, work_id)
    except AgentError as exc:
        raise Refused(failure_text("the agent did not stop it", exc), error_detail(exc)) from None
