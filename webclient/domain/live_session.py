"""One ACP session as the server lives it: its state, its tabs, its suggestions, its running turn.

The runtime owns the agent and routes each event to the `LiveSession` it names; everything that happens
inside one session (a prompt, a cancel, a chosen suggestion, the agent's updates) happens here. Every
task a session starts is its own and ends with it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any, Generic

from webclient.acp.connection import AgentConnection
from webclient.acp.controls import config_options_from_wire, modes_from_wire
from webclient.acp.models import (
    AgentStatus,
    ContentPart,
    Notice,
    NoticeLevel,
    SessionEvent,
    SessionInfoEvent,
    SuggestionsEvent,
)
from webclient.acp.translate import content_to_wire
from webclient.domain.changes import SinkFactory, SinkT
from webclient.domain.files import FileAccess
from webclient.domain.prompt import PromptRejected, compose
from webclient.domain.state import (
    Aspect,
    FileWriteItem,
    PermissionItem,
    PermissionState,
    SessionState,
    TurnState,
)
from webclient.domain.suggestions import Outcome, Suggestion, SuggestionLedger, SuggestionPolicy
from webclient.errors import AgentError, AgentExitedError, AgentRequestError

# How long after a turn ends the agent may still replace or withdraw its suggestions before we call its
# earlier list stale: real agents send them shortly after the prompt response (claude-agent-acp ~60 ms).
SUGGESTION_GRACE_SECONDS = 1.5


class LiveSession(Generic[SinkT]):
    """A session and whoever shows it (`hub`). `state.session_id` is the agent's id once it exists."""

    def __init__(
        self, local_id: str, sink_factory: SinkFactory[SinkT], policy: SuggestionPolicy, files: FileAccess
    ) -> None:
        self.local_id = local_id
        self.state = SessionState()
        self.hub: SinkT = sink_factory(self.state)
        self.ledger = SuggestionLedger(policy)
        self.files = files
        self.agent: AgentConnection | None = None
        # Open permission requests: item id -> the future the agent's request waits on.
        self._permissions: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._turn: asyncio.Task[None] | None = None
        self._grace: asyncio.Task[None] | None = None
        self._closing = False
        # Told whenever the turn or a pending permission changes what the sidebar says of this session.
        self.on_status: Callable[[], None] = _nothing

    def start(self) -> None:
        self.hub.start()

    async def close(self) -> None:
        """End every task of this session and disconnect its tabs."""
        self._closing = True
        self.cancel_permissions()
        for task in (self._turn, self._grace):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        await self.hub.stop()

    @property
    def prompt_capabilities(self) -> dict[str, Any]:
        return self.agent.info.prompt_capabilities if self.agent and self.agent.info else {}

    # --- prompts ----------------------------------------------------------------------------------------

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
        if not self.state.can_prompt or self.agent is None or self.state.session_id is None:
            return f"the agent cannot take a prompt now ({self.state.display_status})"
        if not parts:
            return "an empty prompt was not sent"
        self.hub.mark(self.state.add_user_message(parts, auto_sent=auto_sent))
        self.hub.mark(self.state.set_turn(TurnState.WORKING))
        self.on_status()
        self.ledger.prompt_accepted()
        if self._grace is not None:
            self._grace.cancel()
        blocks = wire if wire is not None else [content_to_wire(part) for part in parts]
        self._turn = asyncio.create_task(self._run_turn(self.agent, self.state.session_id, blocks))
        return None

    def submit_composed(self, text: str, attachments: list[str]) -> str | None:
        """Send what the composer holds: its text and the attachments the user kept in it."""
        try:
            composed = compose(text, attachments, self.prompt_capabilities)
        except PromptRejected as exc:
            return str(exc)
        return self.submit_prompt(composed.parts, wire=composed.wire)

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

    async def cancel(self) -> str | None:
        """Ask the agent to stop the running turn (`session/cancel`)."""
        if self.state.turn is not TurnState.WORKING or self.agent is None or self.state.session_id is None:
            return "nothing to cancel"
        self.hub.mark(self.state.set_turn(TurnState.CANCELLING))
        self.on_status()
        self.cancel_permissions()  # the protocol answers a pending request "cancelled" on session/cancel
        try:
            await self.agent.cancel(self.state.session_id)
        except AgentError as exc:
            return str(exc)
        return None

    async def _run_turn(self, agent: AgentConnection, session_id: str, blocks: list[dict[str, Any]]) -> None:
        try:
            reason = await agent.prompt(session_id, blocks)
            if reason != "end_turn":
                self.notice(NoticeLevel.INFO, describe_stop_reason(reason))
        except AgentExitedError:
            pass  # the runtime reports the exit once, with the agent's stderr
        except AgentError as exc:
            self.notice(NoticeLevel.ERROR, str(exc), error_detail(exc))
        finally:
            self.hub.mark(self.state.set_turn(TurnState.IDLE))
            self.on_status()
            if not self._closing:
                self._grace = asyncio.create_task(self._check_withdrawal(), name="suggestion-grace")

    async def _check_withdrawal(self) -> None:
        await asyncio.sleep(SUGGESTION_GRACE_SECONDS)
        for text in self.ledger.turn_settled():
            self.notice(NoticeLevel.WARNING, f"prompt suggestions: {text}")

    # --- what the agent asks ----------------------------------------------------------------------------

    async def request_permission(
        self, tool_call: dict[str, Any], options: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """Show the request and wait for the user's answer; anything but a choice is "cancelled"."""
        item = PermissionItem(tool_call=tool_call, options=tuple(options))
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._permissions[item.id] = future
        self.hub.mark(self.state.add_item(item))
        self.on_status()
        try:
            return await future
        finally:
            self._permissions.pop(item.id, None)
            if item.state is PermissionState.PENDING:  # the agent gave up waiting, or we are closing
                item.state = PermissionState.CANCELLED
                self.hub.mark({item.id})
            if not self._closing:
                self.on_status()

    def answer_permission(self, request_id: str, option_id: str) -> str | None:
        """The user chose an option; fails closed: an unknown, late or repeated answer approves nothing."""
        future = self._permissions.get(request_id)
        item = self.state.item(request_id)
        if future is None or future.done() or not isinstance(item, PermissionItem):
            return "that permission request is no longer pending; nothing was approved"
        option = item.option(option_id)
        if option is None:
            return "that is not one of the agent's options; nothing was approved"
        item.state = PermissionState.ANSWERED
        item.chosen = str(option.get("name") or option_id)
        future.set_result({"outcome": "selected", "optionId": option_id})
        self.hub.mark({item.id})
        self.on_status()
        return None

    def cancel_permissions(self) -> None:
        """Answer every open request "cancelled" (a cancel, a closed session, an agent that exited)."""
        for request_id, future in list(self._permissions.items()):
            if not future.done():
                future.set_result({"outcome": "cancelled"})
            item = self.state.item(request_id)
            if isinstance(item, PermissionItem) and item.state is PermissionState.PENDING:
                item.state = PermissionState.CANCELLED
                self.hub.mark({item.id})

    @property
    def has_pending_permission(self) -> bool:
        return any(not f.done() for f in self._permissions.values())

    def read_text_file(self, path: str, line: int | None, limit: int | None) -> str:
        """`fs/read_text_file`, inside the session's directories only (FileAccessError otherwise)."""
        return self.files.read_text(path, line, limit)

    def write_text_file(self, path: str, content: str) -> None:
        """`fs/write_text_file`, inside the session's directories only; the write shows in the transcript."""
        result = self.files.write_text(path, content)
        item = FileWriteItem(path=str(result.path), old_text=result.old_text, new_text=result.new_text)
        self.hub.mark(self.state.add_item(item))

    # --- what the agent says ----------------------------------------------------------------------------

    def apply(self, event: SessionEvent) -> None:
        if isinstance(event, SuggestionsEvent):
            self._offer(self.ledger.receive(event.update))
            return
        self.hub.mark(self.state.apply(event))
        if isinstance(event, SessionInfoEvent) and event.meta:
            self._offer(self.ledger.receive_legacy(event.meta))

    def _offer(self, outcome: Outcome) -> None:
        for text in outcome.notices:
            self.notice(NoticeLevel.WARNING, f"prompt suggestions: {text}")
        if outcome.offered is not None:
            self.hub.mark(self.state.set_suggestions(outcome.offered))

    def begin_replay(self) -> None:
        """`session/load` is about to replay history: nothing it sends is offered as a suggestion."""
        if self._grace is not None:
            self._grace.cancel()
        self.ledger.begin_replay()
        self.hub.mark(self.state.set_turn(TurnState.WORKING))  # no prompt while the replay runs

    def end_replay(self) -> None:
        self.ledger.end_replay()
        self.state.close_open_message()
        self.hub.mark(self.state.set_suggestions(()) | self.state.set_turn(TurnState.IDLE))
        self.on_status()

    # --- modes and config options -----------------------------------------------------------------------

    def adopt_session_result(self, result: dict[str, Any]) -> None:
        """Take the modes and config options a session/new, load or resume result offers."""
        if not isinstance(result, dict):  # a load or resume may answer null
            result = {}
        modes, current = modes_from_wire(result.get("modes"))
        self.hub.mark(self.state.set_modes(modes, current))
        self.hub.mark(self.state.set_config_options(config_options_from_wire(result.get("configOptions"))))

    async def set_mode(self, mode_id: str) -> str | None:
        """Switch mode (`session/set_mode`) to one the agent offered; returns an error message if not."""
        if self.agent is None or self.state.session_id is None:
            return "there is no session to switch the mode of yet"
        if mode_id not in {mode.id for mode in self.state.available_modes}:
            self.hub.mark({Aspect.DETAILS})  # put the tab's selector back on the mode in force
            return f"the agent does not offer a mode {mode_id!r}; the mode stays as it was"
        try:
            params = {"sessionId": self.state.session_id, "modeId": mode_id}
            await self.agent.request("session/set_mode", params)
        except AgentError as exc:
            self.hub.mark({Aspect.DETAILS})
            return f"the agent did not switch the mode: {exc}"
        self.hub.mark(self.state.set_current_mode(mode_id))
        return None

    async def set_config_option(self, config_id: str, value: str | bool) -> str | None:
        """Set a config option the agent offered to one of its values (`session/set_config_option`)."""
        if self.agent is None or self.state.session_id is None:
            return "there is no session to configure yet"
        option = next((o for o in self.state.config_options if o.id == config_id), None)
        if option is None or not option.accepts(value):
            self.hub.mark({Aspect.DETAILS})
            what = f"an option {config_id!r}" if option is None else f"{value!r} for {option.name!r}"
            return f"the agent does not offer {what}; nothing was changed"
        params: dict[str, Any] = {"sessionId": self.state.session_id, "configId": config_id, "value": value}
        if option.kind == "boolean":
            params["type"] = "boolean"
        try:
            result = await self.agent.request("session/set_config_option", params)
        except AgentError as exc:
            self.hub.mark({Aspect.DETAILS})
            return f"the agent did not change {option.name!r}: {exc}"
        if isinstance(result, dict) and isinstance(result.get("configOptions"), list):
            self.hub.mark(self.state.set_config_options(config_options_from_wire(result["configOptions"])))
        return None

    # --- helpers ----------------------------------------------------------------------------------------

    def notice(self, level: NoticeLevel, text: str, detail: str | None = None) -> None:
        self.hub.mark(self.state.add_notice(Notice(level=level, text=text, detail=detail)))

    def set_agent_status(self, status: AgentStatus) -> None:
        self.hub.mark(self.state.set_agent_status(status))


def _nothing() -> None:
    return None


def error_detail(exc: AgentError) -> str | None:
    if isinstance(exc, AgentExitedError):
        return "\n".join(exc.stderr_tail) or "(the agent wrote nothing to stderr)"
    if isinstance(exc, AgentRequestError) and exc.data is not None:
        return repr(exc.data)[:1000]
    return None


def describe_stop_reason(reason: str) -> str:
    return {
        "cancelled": "the turn was cancelled",
        "max_tokens": "the agent stopped: it reached its token limit",
        "max_turn_requests": "the agent stopped: it reached its limit of model requests for one turn",
        "refusal": "the agent refused to continue",
    }.get(reason, f"the turn ended: {reason}")
