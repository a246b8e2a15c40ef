"""Owns the agent process and the session for the server's lifetime.

The runtime is the `AgentListener` of the agent layer: it applies translated events to the session
state and marks what changed on the live hub. It owns every background task it starts (the agent's
lifecycle and the running turn) and cancels them on shutdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
from collections import deque
from typing import Any

from webclient.agent_connection import AUTH_REQUIRED, AgentConnection, AgentInfo
from webclient.agent_process import AgentProcess
from webclient.capabilities import SUGGESTION_CONTENT_TYPES, initialize_params
from webclient.errors import (
    AgentError,
    AgentExitedError,
    AgentRequestError,
    describe_exit,
)
from webclient.live import LiveHub
from webclient.models import (
    AgentStatus,
    ContentPart,
    Notice,
    NoticeLevel,
    SessionEvent,
    SessionInfoEvent,
    SuggestionsEvent,
)
from webclient.prompt import PromptRejected, compose
from webclient.session import HEADER, STATUS, SessionState, TurnState
from webclient.settings import Settings
from webclient.suggestions import Outcome, Suggestion, SuggestionLedger, SuggestionPolicy, allowed_types
from webclient.translate import Translation, content_to_wire

WIRE_LOG_SIZE = 2000
# How long after a turn ends the agent may still replace or withdraw its suggestions before we call its
# earlier list stale: real agents send them shortly after the prompt response (claude-agent-acp ~60 ms).
SUGGESTION_GRACE_SECONDS = 1.5


class Runtime:
    """One agent, one session, any number of tabs."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.state = SessionState()
        self.hub = LiveHub(self.state, settings.flush_interval)
        self.wire_log: deque[tuple[str, dict[str, Any]]] = deque(maxlen=WIRE_LOG_SIZE)
        self._agent: AgentConnection | None = None
        self._lifecycle: asyncio.Task[None] | None = None
        self._turn: asyncio.Task[None] | None = None
        self._auth_choice: asyncio.Future[str] | None = None
        self._opening_session = False
        self._early_updates: list[Translation] = []
        self._grace: asyncio.Task[None] | None = None
        self._closing = False
        self.ledger = SuggestionLedger(SuggestionPolicy(advertised=False, allowed=frozenset()))

    # --- lifecycle --------------------------------------------------------------------------------------

    async def start(self) -> None:
        self.hub.start()
        self._lifecycle = asyncio.create_task(self._run_agent(), name="agent-lifecycle")

    async def shutdown(self) -> None:
        self._closing = True
        for task in (self._turn, self._grace, self._lifecycle):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        if self._agent is not None:
            await self._agent.stop()
        await self.hub.stop()

    async def restart(self) -> None:
        """Stop the agent if it still runs and start a fresh one with a new session."""
        if self._lifecycle is not None and not self._lifecycle.done():
            self._lifecycle.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._lifecycle
        if self._agent is not None:
            await self._agent.stop()
        self._notice(NoticeLevel.INFO, "restarting the agent; the conversation continues in a new session")
        self._lifecycle = asyncio.create_task(self._run_agent(), name="agent-lifecycle")

    async def _run_agent(self) -> None:
        self._set_status(AgentStatus.STARTING)
        self.state.session_id = None
        agent = AgentConnection(
            AgentProcess(
                self.settings.agent_argv,
                self.settings.cwd,
                self.settings.stderr_tail_lines,
                extra_env=self.settings.agent_env,
            ),
            self,
            initialize_params(
                prompt_suggestions=self.settings.prompt_suggestions,
                jetbrains_air=self.settings.jetbrains_air,
            ),
            self.settings.initialize_timeout,
        )
        self._agent = agent
        try:
            info = await agent.start()
            self._announce(info)
            self._negotiate_suggestions(info)
            await self._open_session(agent, info)
        except AgentError as exc:
            self._report_failure(exc)
            await agent.stop()
            self._set_status(AgentStatus.EXITED)
            return
        finally:
            self.state.set_auth_methods(())
            self.hub.mark({"auth"})
        self._set_status(AgentStatus.READY)
        code = await agent.wait_exit()
        self._report_failure(AgentExitedError(code, agent.process.stderr_tail()))
        await agent.stop()
        self._set_status(AgentStatus.EXITED)

    def _negotiate_suggestions(self, info: AgentInfo) -> None:
        advertised = self.settings.prompt_suggestions
        offer = SUGGESTION_CONTENT_TYPES if advertised else None
        policy = SuggestionPolicy(advertised, allowed_types(offer, info.prompt_capabilities))
        self.ledger = SuggestionLedger(policy)

    def _announce(self, info: AgentInfo) -> None:
        self.state.agent_name = info.display_name + (f" {info.version}" if info.version else "")
        self.hub.mark({HEADER})
        if info.protocol_version != 1:
            self._notice(
                NoticeLevel.WARNING,
                f"the agent speaks ACP version {info.protocol_version}; this client speaks version 1",
            )

    async def _open_session(self, agent: AgentConnection, info: AgentInfo) -> None:
        self._opening_session = True
        try:
            result = await self._new_session_with_auth(agent, info)
            self.state.session_id = result["sessionId"]
            # A session starts with an empty list: a restart must not keep offering the old session's.
            self.hub.mark(self.state.set_suggestions(()))
        finally:
            self._opening_session = False
            early, self._early_updates = self._early_updates, []
        for translation in early:
            self.on_update(translation)

    async def _new_session_with_auth(self, agent: AgentConnection, info: AgentInfo) -> dict[str, Any]:
        try:
            return await agent.new_session(self.settings.cwd)
        except AgentRequestError as exc:
            if exc.code != AUTH_REQUIRED or not info.auth_methods:
                raise
        method_id = await self._choose_auth_method(agent, info)
        await agent.authenticate(method_id)
        return await agent.new_session(self.settings.cwd)

    async def _choose_auth_method(self, agent: AgentConnection, info: AgentInfo) -> str:
        if len(info.auth_methods) == 1:
            return info.auth_methods[0].id
        choice: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._auth_choice = choice
        self.hub.mark(self.state.set_auth_methods(info.auth_methods))
        self._set_status(AgentStatus.AUTH_REQUIRED)
        # Wait for the user, unless the agent dies first: then report that, not a sign-in nobody can finish.
        exited = asyncio.ensure_future(agent.wait_exit())
        try:
            either: set[asyncio.Future[Any]] = {choice, exited}
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            if not choice.done():
                raise AgentExitedError(exited.result(), agent.process.stderr_tail())
            return choice.result()
        finally:
            exited.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await exited
            self._auth_choice = None

    def choose_auth(self, method_id: str) -> str | None:
        """The user picked a sign-in method; returns an error message if that is not possible now."""
        if self._auth_choice is None or self._auth_choice.done():
            return "the agent is not waiting for a sign-in"
        if method_id not in {m.id for m in self.state.auth_methods}:
            return f"unknown sign-in method {method_id!r}"
        self._auth_choice.set_result(method_id)
        return None

    # --- turns ------------------------------------------------------------------------------------------

    def submit_prompt(
        self,
        parts: list[ContentPart],
        *,
        wire: list[dict[str, Any]] | None = None,
        auto_sent: bool = False,
    ) -> str | None:
        """Start a turn with this prompt; returns an error message when the session cannot take one.

        `wire` overrides the blocks sent (a chosen suggestion goes out exactly as the agent sent it).
        """
        if not self.state.can_prompt or self._agent is None or self.state.session_id is None:
            return f"the agent cannot take a prompt now ({self.state.display_status})"
        if not parts:
            return "an empty prompt was not sent"
        self.hub.mark(self.state.add_user_message(parts, auto_sent=auto_sent))
        self.hub.mark(self.state.set_turn(TurnState.WORKING))
        self.ledger.prompt_accepted()
        if self._grace is not None:
            self._grace.cancel()
        blocks = wire if wire is not None else [content_to_wire(part) for part in parts]
        self._turn = asyncio.create_task(self._run_turn(self._agent, self.state.session_id, blocks))
        return None

    def send_suggestion(self, generation: int, index: int, *, auto_sent: bool = False) -> str | None:
        """The user chose suggestion `index` of list `generation` (or turned on auto-send): send it."""
        chosen = self.find_suggestion(generation, index)
        if isinstance(chosen, str):
            return f"{chosen}; nothing was sent"
        return self.submit_prompt(
            list(chosen.parts), wire=[dict(b) for b in chosen.wire], auto_sent=auto_sent
        )

    def find_suggestion(self, generation: int, index: int) -> Suggestion | str:
        """Suggestion `index` of the list numbered `generation`, or why it is not there any more."""
        if generation != self.state.suggestions_generation:
            return "that suggestion was replaced before it could be used"
        if not 0 <= index < len(self.state.suggestions):
            return "no such suggestion"
        return self.state.suggestions[index]

    def submit_composed(self, text: str, attachments: list[str]) -> str | None:
        """Send what the composer holds: its text and the attachments the user kept in it."""
        caps = self._agent.info.prompt_capabilities if self._agent and self._agent.info else {}
        try:
            composed = compose(text, attachments, caps)
        except PromptRejected as exc:
            return str(exc)
        return self.submit_prompt(composed.parts, wire=composed.wire)

    async def load_session(self, session_id: str) -> str | None:
        """Load an earlier session (`session/load`): its replay becomes the transcript.

        The loaded session starts with an empty suggestion list, and suggestions that arrive during the
        replay are not offered. Returns an error message when loading is not possible; on failure the
        current conversation is kept.
        """
        agent = self._agent
        if not self.state.can_prompt or agent is None or agent.info is None:
            return f"the agent cannot load a session now ({self.state.display_status})"
        if agent.info.capabilities.get("loadSession") is not True:
            return "the agent does not support loading sessions"
        saved = copy.copy(self.state)
        saved_ledger = self.ledger
        if self._grace is not None:
            self._grace.cancel()
        self.state.reset_conversation(session_id)
        self.ledger = SuggestionLedger(saved_ledger.policy)  # lists are per session
        self.ledger.begin_replay()
        self.state.set_turn(TurnState.WORKING)  # no prompt while the replay runs
        self._resync()
        try:
            await agent.request(
                "session/load", {"sessionId": session_id, "cwd": str(self.settings.cwd), "mcpServers": []}
            )
        except AgentError as exc:
            for name in ("session_id", "items", "plan", "title", "usage", "_tool_calls", "suggestions"):
                setattr(self.state, name, getattr(saved, name))
            self.state.suggestions_generation += 1
            self.ledger = saved_ledger
            self._notice(NoticeLevel.ERROR, f"could not load session {session_id!r}: {exc}", _detail(exc))
            return str(exc)
        finally:
            self.ledger.end_replay()
            self.state.close_open_message()
            self.state.set_turn(TurnState.IDLE)
            self._resync()
        return None

    async def _run_turn(self, agent: AgentConnection, session_id: str, blocks: list[dict[str, Any]]) -> None:
        try:
            reason = await agent.prompt(session_id, blocks)
            if reason != "end_turn":
                self._notice(NoticeLevel.INFO, _describe_stop_reason(reason))
        except AgentExitedError:
            pass  # the lifecycle task reports the exit once, with the agent's stderr
        except AgentError as exc:
            self._notice(NoticeLevel.ERROR, str(exc), _detail(exc))
        finally:
            self.hub.mark(self.state.set_turn(TurnState.IDLE))
            if not self._closing:
                self._grace = asyncio.create_task(self._check_withdrawal(), name="suggestion-grace")

    async def _check_withdrawal(self) -> None:
        await asyncio.sleep(SUGGESTION_GRACE_SECONDS)
        for text in self.ledger.turn_settled():
            self._notice(NoticeLevel.WARNING, f"prompt suggestions: {text}")

    async def cancel(self) -> str | None:
        """Ask the agent to stop the running turn (`session/cancel`)."""
        if self.state.turn is not TurnState.WORKING or self._agent is None or self.state.session_id is None:
            return "nothing to cancel"
        self.hub.mark(self.state.set_turn(TurnState.CANCELLING))
        try:
            await self._agent.cancel(self.state.session_id)
        except AgentError as exc:
            return str(exc)
        return None

    # --- AgentListener ----------------------------------------------------------------------------------

    def on_update(self, translation: Translation) -> None:
        if translation.session_id is not None and translation.session_id != self.state.session_id:
            if self._opening_session:
                self._early_updates.append(translation)  # may belong to the session being created
                return
            self._notice(
                NoticeLevel.WARNING,
                f"ignored an update for unknown session {translation.session_id!r}",
            )
            return
        for event in translation.events:
            self._apply(event)

    def _apply(self, event: SessionEvent) -> None:
        if isinstance(event, SuggestionsEvent):
            self._offer(self.ledger.receive(event.update))
            return
        self.hub.mark(self.state.apply(event))
        if isinstance(event, SessionInfoEvent) and event.meta:
            self._offer(self.ledger.receive_legacy(event.meta))

    def _offer(self, outcome: Outcome) -> None:
        for text in outcome.notices:
            self._notice(NoticeLevel.WARNING, f"prompt suggestions: {text}")
        if outcome.offered is not None:
            self.hub.mark(self.state.set_suggestions(outcome.offered))

    def on_notice(self, notice: Notice) -> None:
        self.hub.mark(self.state.add_notice(notice))

    def on_wire(self, direction: str, message: dict[str, Any]) -> None:
        self.wire_log.append((direction, message))

    async def request_permission(
        self, session_id: str, tool_call: dict[str, Any], options: list[dict[str, Any]]
    ) -> dict[str, Any]:
        # Fail closed until the permission dialog exists: never guess an approval.
        title = tool_call.get("title") or tool_call.get("toolCallId") or "a tool call"
        self._notice(
            NoticeLevel.WARNING,
            f"the agent asked for permission to run {title!r}; this client declined it, "
            "because it does not show permission requests yet",
        )
        return {"outcome": "cancelled"}

    # --- helpers ----------------------------------------------------------------------------------------

    def _resync(self) -> None:
        """The transcript was replaced wholesale: tabs get a fresh snapshot (none to render without tabs)."""
        if self.hub.subscriber_count:
            self.hub.resync()
        else:
            self.hub.mark({STATUS})

    def _set_status(self, status: AgentStatus) -> None:
        self.hub.mark(self.state.set_agent_status(status))

    def _notice(self, level: NoticeLevel, text: str, detail: str | None = None) -> None:
        self.hub.mark(self.state.add_notice(Notice(level=level, text=text, detail=detail)))

    def _report_failure(self, exc: AgentError) -> None:
        text = str(exc)
        if isinstance(exc, AgentExitedError):
            text = describe_exit(exc.exit_code)
        self._notice(NoticeLevel.ERROR, text, _detail(exc))


def _detail(exc: AgentError) -> str | None:
    if isinstance(exc, AgentExitedError):
        return "\n".join(exc.stderr_tail) or "(the agent wrote nothing to stderr)"
    if isinstance(exc, AgentRequestError) and exc.data is not None:
        return repr(exc.data)[:1000]
    return None


def _describe_stop_reason(reason: str) -> str:
    return {
        "cancelled": "the turn was cancelled",
        "max_tokens": "the agent stopped: it reached its token limit",
        "max_turn_requests": "the agent stopped: it reached its limit of model requests for one turn",
        "refusal": "the agent refused to continue",
    }.get(reason, f"the turn ended: {reason}")
