"""One ACP session as the server lives it: its state, its viewers, its suggestions, its running turn.

The session registry routes each event of the agent to the `LiveSession` it names; everything that
happens inside one session (a prompt, a cancel, a chosen suggestion, a permission answer, the agent's
updates) happens here. Every task a session starts is its own and ends with it. What the user asks for
and cannot have raises `Refused`, which changes nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Generic

from webclient.acp.link import AgentLink
from webclient.acp.models import (
    AgentInfo,
    AgentStatus,
    ContentPart,
    Notice,
    NoticeLevel,
    OpenedSession,
    PermissionOutcome,
    PermissionRequest,
    PromptBlock,
    PromptCapabilities,
    SessionEvent,
    Suggestion,
    SuggestionsEvent,
    TerminalOutput,
)
from webclient.aio import cancel_and_wait
from webclient.domain import unfinished
from webclient.domain.changes import SinkFactory, SinkT
from webclient.domain.file_requests import FileRequests
from webclient.domain.files import FileAccess
from webclient.domain.permissions import PermissionDesk
from webclient.domain.prompt import ComposerAttachments
from webclient.domain.prompt_queue import WaitingPrompt
from webclient.domain.protected import ProtectedPaths
from webclient.domain.reasons import describe_stop_reason, error_detail, failure_text
from webclient.domain.state import Aspect, SessionState, TurnState
from webclient.domain.suggestions import Outcome, SuggestionLedger, SuggestionPolicy
from webclient.domain.terminals import TerminalManager
from webclient.errors import AgentError, AgentExitedError, Refused

# How long after a turn ends the agent may still replace or withdraw its suggestions before we call its
# earlier list stale: real agents send them shortly after the prompt response (claude-agent-acp ~60 ms).
SUGGESTION_GRACE_SECONDS = 1.5
# How long an agent may take to end its turn after `session/cancel` before we offer to stop it.
CANCEL_GRACE_SECONDS = 10.0


class LiveSession(Generic[SinkT]):
    """A session and whoever shows it (`hub`). `state.session_id` is the agent's id once it exists."""

    def __init__(
        self,
        local_id: str,
        sink_factory: SinkFactory[SinkT],
        policy: SuggestionPolicy,
        files: FileAccess,
        agent_key: str = "",
        *,
        agent_label: str = "",
        protected: ProtectedPaths | None = None,
        cancel_grace: float = CANCEL_GRACE_SECONDS,
    ) -> None:
        """`agent_label`: the agent's name in the settings. `protected`: writes there wait for the user's
        approval (None: none). `cancel_grace`: seconds after Cancel before an agent still working is stuck."""
        self.local_id = local_id
        # The agent is known before the sink is made: a sink may depend on it (its protocol log does).
        self.state = SessionState(agent_key=agent_key, agent_label=agent_label, workspace=str(files.roots[0]))
        self.hub: SinkT = sink_factory(self.state)
        self.ledger = SuggestionLedger(policy)
        self.files = files
        # The commands the agent runs through us (`terminal/*`); each shows in the card that embeds it.
        self.terminals = TerminalManager(files, files.roots[0], self._terminal_changed)
        self.cancel_grace = cancel_grace
        self.agent: AgentLink | None = None
        self.agent_key = agent_key  # which of the server's agents this session talks to
        # Told when a turn ends (the registry refreshes the agent's stored sessions then).
        self.turn_ended: Callable[[], None] | None = None
        # A prompt sent before `session/new` answered: it goes out as soon as the session exists.
        self._queued: tuple[PromptBlock, ...] | None = None
        self.permissions = PermissionDesk(self.state, self.hub.mark, lambda: self.on_status())
        # The agent's `fs/*` requests; a question about a protected write is ours, and ends with the turn.
        self.fs = FileRequests(
            files, protected, self.state, self.hub.mark, lambda r: self.permissions.ask(r, ours=True)
        )
        # The prompts running: one at a time in ACP v1; in v2 the agent takes more (it queues them).
        self._turns: set[asyncio.Task[None]] = set()
        self._grace: asyncio.Task[None] | None = None
        self._cancel_watch: asyncio.Task[None] | None = None
        self._closing = False
        self._stderr_before: list[str] = []  # the agent's stderr tail when the running turn began
        # Told whenever the turn or a pending permission changes what the sidebar says of this session.
        self.on_status: Callable[[], None] = _nothing
        self.note_wire: Callable[[str], None] = lambda text: None  # a note in this session's inspector

    def start(self) -> None:
        self.hub.start()

    async def close(self) -> None:
        """End every task of this session and disconnect its viewers."""
        self._closing = True
        self.permissions.close()
        await self.terminals.close()
        for task in (*self._turns, self._grace, self._cancel_watch):
            if task is not None:
                await cancel_and_wait(task)
        await self.hub.stop()

    @property
    def prompt_capabilities(self) -> PromptCapabilities:
        info = self.agent.info if self.agent else None
        return info.capabilities.prompt if info else PromptCapabilities()

    # --- prompts ----------------------------------------------------------------------------------------

    def submit_prompt(self, parts: Sequence[ContentPart], *, auto_sent: bool = False) -> None:
        """Start a turn with a prompt of these parts; see `submit_blocks`."""
        self.submit_blocks([PromptBlock(part=part) for part in parts], auto_sent=auto_sent)

    def submit_blocks(self, blocks: Sequence[PromptBlock], *, auto_sent: bool = False) -> None:
        """Start a turn with this prompt, or, while a turn runs, have it wait for its end (`prompt_queue`);
        raises Refused when it can do neither. The transcript shows the blocks' parts; the agent layer sends
        each block (one an agent wrote, a chosen suggestion's, goes out exactly as the agent sent it).
        Before the agent's `session/new` has answered, the prompt waits and goes out once it has."""
        if not blocks:
            raise Refused("an empty prompt was not sent")
        if not self.state.can_prompt or self.agent is None:
            self.hub.mark(self.state.waiting.hold(self.state, blocks, auto_sent=auto_sent))
            return
        parts = [block.part for block in blocks]
        self.hub.mark(self.state.begin_turn(parts, auto_sent=auto_sent))
        self.on_status()
        if not self.state.keyed_messages:
            # v1: sending is accepting. In v2 the agent accepts a prompt when it inserts its user
            # message (see apply), which is when an earlier suggestion list goes out of date.
            self.ledger.prompt_accepted()
        if self._grace is not None:
            self._grace.cancel()
        if self.state.session_id is None:
            self._queued = tuple(blocks)
            self.hub.mark(self.state.set_queued(True))
            return
        self._start_turn(self.agent, self.state.session_id, tuple(blocks))

    def _start_turn(self, agent: AgentLink, session_id: str, blocks: tuple[PromptBlock, ...]) -> None:
        self._stderr_before = agent.process.stderr_tail()
        turn = asyncio.create_task(self._run_turn(agent, session_id, blocks), name="turn")
        self._turns.add(turn)
        turn.add_done_callback(self._turns.discard)

    def _send_queued(self) -> None:
        """The session exists now: send the prompt that waited for it."""
        blocks, self._queued = self._queued, None
        self.hub.mark(self.state.set_queued(False))
        if blocks is None or self.agent is None or self.state.session_id is None:
            return
        self._start_turn(self.agent, self.state.session_id, blocks)

    def drop_queued(self, reason: str) -> None:
        """The session could not be opened: the waiting prompt is not sent (it stays in the transcript)."""
        if self._queued is None:
            return
        self._queued = None
        self.hub.mark(self.state.drop_queued())
        self.notice(NoticeLevel.WARNING, f"your last prompt was not sent: {reason}")

    def submit_composed(self, text: str, kept: list[str], composer: ComposerAttachments) -> None:
        """Send what a tab's composer holds: its text and the attachments (by id) the user kept in it."""
        composed = composer.compose(text, kept, self.prompt_capabilities)  # PromptRejected is Refused
        self.submit_blocks(composed.blocks)
        composer.clear()

    def send_suggestion(self, generation: int, index: int, *, auto_sent: bool = False) -> None:
        """The user chose suggestion `index` of list `generation` (or turned on auto-send): send it."""
        try:
            chosen = self.find_suggestion(generation, index)
        except Refused as exc:
            raise Refused(f"{exc}; nothing was sent") from None
        self.submit_blocks(chosen.blocks, auto_sent=auto_sent)

    def find_suggestion(self, generation: int, index: int) -> Suggestion:
        """Suggestion `index` of the list numbered `generation`; Refused if it is not there any more."""
        if generation != self.state.suggestions_generation:
            raise Refused("that suggestion was replaced before it could be used")
        if not 0 <= index < len(self.state.suggestions):
            raise Refused("no such suggestion")
        return self.state.suggestions[index]

    async def cancel(self) -> None:
        """Ask the agent to stop the running turn (`session/cancel`), or drop a prompt still waiting."""
        if self._queued is not None:
            self.drop_queued("you cancelled it before the session was open")
            return
        if self.state.turn is not TurnState.WORKING or self.agent is None or self.state.session_id is None:
            raise Refused("nothing to cancel")
        self.hub.mark(self.state.cancel_turn())
        self.on_status()
        self.cancel_permissions()  # the protocol answers a pending request "cancelled" on session/cancel
        self._cancel_watch = asyncio.create_task(self._watch_cancel(), name="cancel-grace")
        try:
            await self.agent.cancel(self.state.session_id)
        except AgentError as exc:
            raise Refused(str(exc), error_detail(exc)) from None

    async def _watch_cancel(self) -> None:
        """An agent that has not ended its turn within the grace period ignored the cancel: say so, and
        the page offers to stop it (the turn would otherwise stay "cancelling" for ever)."""
        await asyncio.sleep(self.cancel_grace)
        if self.state.turn is TurnState.CANCELLING:
            self.hub.mark(self.state.ignore_cancel())
            self.notice(
                NoticeLevel.WARNING,
                f"the agent did not stop within {self.cancel_grace:g} s of Cancel; stopping it restarts "
                "the agent, and the conversation stays",
            )

    async def _run_turn(self, agent: AgentLink, session_id: str, blocks: tuple[PromptBlock, ...]) -> None:
        try:
            reason = await agent.prompt(session_id, blocks)
            if reason != "end_turn":
                self.notice(NoticeLevel.INFO, describe_stop_reason(reason))
        except AgentExitedError:
            pass  # the exit is reported once, to every session, with the agent's stderr
        except AgentError as exc:
            self.notice(NoticeLevel.ERROR, failure_text("the turn failed", exc), error_detail(exc))
        finally:
            if not self._other_turns_running():
                self._end_turn()

    def _other_turns_running(self) -> bool:
        current = asyncio.current_task()
        return any(turn is not current and not turn.done() for turn in self._turns)

    def _end_turn(self) -> None:
        """The last running prompt ended: the session is idle again."""
        self.permissions.cancel_ours()
        if self._cancel_watch is not None:
            self._cancel_watch.cancel()
        left = [card.title or card.tool_call_id for card in self.state.open_tool_calls()]
        self.hub.mark(self.state.end_turn())
        if left:  # the cards show "not finished"; the inspector and a notice say why
            after = self.agent.process.stderr_tail() if self.agent is not None else []
            note, notice = unfinished.report(left, unfinished.written_since(self._stderr_before, after))
            self.note_wire(note)
            self.hub.mark(self.state.add_notice(notice))
        self.on_status()
        if not self._closing:
            self._grace = asyncio.create_task(self._check_withdrawal(), name="suggestion-grace")
            if self.turn_ended is not None:
                self.turn_ended()
            waiting = self.state.waiting.next() if self.state.can_prompt and self.agent else None
            if waiting is not None:  # the first prompt that waited goes out: the queue shows one fewer
                self.hub.mark({Aspect.QUEUE})
                self.submit_blocks(waiting.blocks)

    def take_back(self, prompt_id: str) -> WaitingPrompt:
        """A waiting prompt the person cancels or takes back to edit; Refused if it went out already."""
        taken, changed = self.state.waiting.take(prompt_id)
        self.hub.mark(changed)
        return taken

    async def _check_withdrawal(self) -> None:
        await asyncio.sleep(SUGGESTION_GRACE_SECONDS)
        for text in self.ledger.turn_settled():
            self.notice(NoticeLevel.WARNING, f"prompt suggestions: {text}")

    # --- what the agent asks ----------------------------------------------------------------------------

    async def request_permission(
        self, request: PermissionRequest, *, ours: bool = False
    ) -> PermissionOutcome:
        """Show the request and wait for the user's answer; anything but a choice is "cancelled".

        `ours`: the client asks (a protected write), so the end of the turn also answers "cancelled".
        """
        if not ours and request.updates_card:
            # The request's tool call is a tool call: it fills in (or opens) the card with its id, so an
            # agent that describes a call only here (qwen-code) still gets a card with a title, and the
            # question sits right under it.
            self.hub.mark(self.state.apply(request.tool_call))
        return await self.permissions.ask(request, ours=ours)

    def answer_permission(self, request_id: str, option_id: str) -> None:
        """The user chose an option; fails closed: an unknown, late or repeated answer approves nothing."""
        self.permissions.answer(request_id, option_id)

    def cancel_permissions(self) -> None:
        """Answer every open request "cancelled" (a cancel, an agent that exited)."""
        self.permissions.cancel()

    def _terminal_changed(self, terminal_id: str, output: TerminalOutput) -> None:
        self.hub.mark(self.state.set_terminal(terminal_id, output))

    # --- what the agent says ----------------------------------------------------------------------------

    def apply(self, event: SessionEvent) -> None:
        if isinstance(event, SuggestionsEvent):
            self._offer(self.ledger.receive(event))
            return
        pending = self.state.pending_prompts
        self.hub.mark(self.state.apply(event))
        if self.state.pending_prompts < pending:  # v2: the agent inserted (accepted) a prompt of ours
            self.ledger.prompt_accepted()

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
        self.hub.mark(self.state.begin_replay())

    def end_replay(self) -> None:
        self.ledger.end_replay()
        self.hub.mark(self.state.end_replay())
        self.on_status()

    # --- the agent and the agent's session ----------------------------------------------------------------

    def meet_agent(self, agent: AgentLink | None, info: AgentInfo | None, policy: SuggestionPolicy) -> None:
        """This session talks to a new agent process (its first, or one after a restart): the old
        process's session, commands and suggestion bookkeeping go with it. `info`: None until the agent
        has answered `initialize`."""
        self.agent = agent
        self.terminals.release_all()  # a restart leaves nothing of the old agent's commands
        self.ledger = SuggestionLedger(policy)
        if info is not None:
            version = agent.protocol_version if agent is not None else 1
            self.hub.mark(self.state.meet_agent(info, version))

    def adopt(self, opened: OpenedSession) -> None:
        """The session exists at the agent: take its id, modes and config options.

        It starts with an empty suggestion list: a restart must not keep offering the old session's.
        """
        self.hub.mark(self.state.open(opened))
        if self._queued is not None:
            self._send_queued()

    # --- modes and config options -----------------------------------------------------------------------

    async def set_mode(self, mode_id: str) -> None:
        """Switch mode (`session/set_mode`) to one the agent offered."""
        agent, session_id = self._connected("switch the mode of")
        if mode_id not in {mode.id for mode in self.state.available_modes}:
            self.hub.mark({Aspect.DETAILS})  # put the tab's selector back on the mode in force
            raise Refused(f"the agent does not offer a mode {mode_id!r}; the mode stays as it was")
        try:
            await agent.set_mode(session_id, mode_id)
        except AgentError as exc:
            self.hub.mark({Aspect.DETAILS})
            raise Refused(failure_text("the agent did not switch the mode", exc), error_detail(exc)) from None
        self.hub.mark(self.state.set_current_mode(mode_id))

    async def set_config_option(self, config_id: str, value: str | bool) -> None:
        """Set a config option the agent offered to one of its values (`session/set_config_option`)."""
        agent, session_id = self._connected("configure")
        option = next((o for o in self.state.config_options if o.id == config_id), None)
        if option is None or not option.accepts(value):
            self.hub.mark({Aspect.DETAILS})
            what = f"an option {config_id!r}" if option is None else f"{value!r} for {option.name!r}"
            raise Refused(f"the agent does not offer {what}; nothing was changed")
        try:
            options = await agent.set_config_option(session_id, config_id, value)
        except AgentError as exc:
            self.hub.mark({Aspect.DETAILS})
            what = f"the agent did not change {option.name!r}"
            raise Refused(failure_text(what, exc), error_detail(exc)) from None
        if options is not None:
            self.hub.mark(self.state.set_config_options(options))

    def _connected(self, verb: str) -> tuple[AgentLink, str]:
        if self.agent is None or self.state.session_id is None:
            raise Refused(f"there is no session to {verb} yet")
        return self.agent, self.state.session_id

    # --- helpers ----------------------------------------------------------------------------------------

    def notice(self, level: NoticeLevel, text: str, detail: str | None = None) -> None:
        self.hub.mark(self.state.add_notice(Notice(level=level, text=text, detail=detail)))

    def set_agent_status(self, status: AgentStatus) -> None:
        self.hub.mark(self.state.set_agent_status(status))


def _nothing() -> None:
    return None
