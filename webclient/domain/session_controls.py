"""The controls an agent offers for one session: its modes (`session/set_mode`) and its config options
(`session/set_config_option`). A choice the agent did not offer, or one it refuses, raises `Refused` and
puts the page's selector back on what is in force.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from webclient.acp.link import AgentLink
from webclient.domain.reasons import error_detail, failure_text
from webclient.domain.state import Aspect, SessionState
from webclient.errors import AgentError, Refused


class SessionControls:
    """Switches one session's mode and sets its config options. `mark` takes the change keys;
    `connected(verb)` is the agent and its session id, or raises Refused saying there is none to `verb`."""

    def __init__(
        self,
        state: SessionState,
        mark: Callable[[Iterable[str]], None],
        connected: Callable[[str], tuple[AgentLink, str]],
    ) -> None:
        self._state = state
        self._mark = mark
        self._connected = connected

    async def set_mode(self, mode_id: str) -> None:
        """Switch mode (`session/set_mode`) to one the agent offered."""
        agent, session_id = self._connected("switch the mode of")
        if mode_id not in {mode.id for mode in self._state.available_modes}:
            self._mark({Aspect.DETAILS})  # put the tab's selector back on the mode in force
            raise Refused(f"the agent does not offer a mode {mode_id!r}; the mode stays as it was")
        try:
            await agent.set_mode(session_id, mode_id)
        except AgentError as exc:
            self._mark({Aspect.DETAILS})
            raise Refused(failure_text("the agent did not switch the mode", exc), error_detail(exc)) from None
        self._mark(self._state.set_current_mode(mode_id))

    async def set_config_option(self, config_id: str, value: str | bool) -> None:
        """Set a config option the agent offered to one of its values (`session/set_config_option`)."""
        agent, session_id = self._connected("configure")
        option = next((o for o in self._state.config_options if o.id == config_id), None)
        if option is None or not option.accepts(value):
            self._mark({Aspect.DETAILS})
            what = f"an option {config_id!r}" if option is None else f"{value!r} for {option.name!r}"
            raise Refused(f"the agent does not offer {what}; nothing was changed")
        try:
            options = await agent.set_config_option(session_id, config_id, value)
        except AgentError as exc:
            self._mark({Aspect.DETAILS})
            what = f"the agent did not change {option.name!r}"
            raise Refused(failure_text(what, exc), error_detail(exc)) from None
        if options is not None:
            self._mark(self._state.set_config_options(options))
