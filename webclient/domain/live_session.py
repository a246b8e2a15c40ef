"""One ACP session as the server lives it: its state, its viewers, its suggestions, its running turn.

The session registry routes each event of the agent to the `LiveSession` it names; everything that
happens inside one session (a prompt, a cancel, a chosen suggestion, a permission answer, the agent's
updates) happens here. Every task a session starts is its own and ends with it. What the user asks for
and cannot have raises `Refused`, which changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
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
from webclient.domain.changes import SinkFactory, SinkT
from webclient.domain.file_requests import FileRequests
from webclient.domain.files import FileAccess
from webclient.domain.kept.entries import KeptCopy
from webclient.domain.permissions import PermissionDesk
from webclient.domain.prompt import ComposerAttachments
from webclient.domain.prompt_queue import WaitingPrompt
from webclient.domain.protected import ProtectedPaths
from webclient.domain.session_controls import SessionControls
from webclient.domain.sidebar import Sidebar
from webclient.domain.sign_in import SignIn
from webclient.domain.state import Aspect, SessionState
from webclient.domain.suggestions import Outcome, SuggestionLedger, SuggestionPolicy, refuse_unread
from webclient.domain.terminals import TerminalManager
from webclient.domain.transcript import Transcript
from webclient.domain.turns import CANCEL_GRACE_SECONDS, Turns
from webclient.errors import Refused


class LiveSession(Generic[SinkT]):
    """A session and whoever shows it (`viewers`). `state.session_id` is the agent's id once it exists."""

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
        self._sink: SinkT = sink_factory(self.state)
        self._observers: list[Callable[[set[str]], None]] = []  # told every change, as the sink is
        self.ledger = SuggestionLedger(policy)
        self.files = files
        # The commands the agent runs through us (`terminal/*`); each shows in the card that embeds it.
        self.terminals = TerminalManager(files, files.roots[0], self._terminal_changed)
        self.agent: AgentLink | None = None
        self.agent_key = agent_key  # which of the server's agents this session talks to
        # Told when a turn ends (the registry refreshes the agent's stored sessions then).
        self.turn_ended: Callable[[], None] | None = None
        self.permissions = PermissionDesk(self.state, self._mark, lambda: self.on_status())
        # The agent's `fs/*` requests; a question about a protected write is ours, and ends with the turn.
        self.fs = FileRequests(
            files, protected, self.state, self._mark, lambda r: self.permissions.ask(r, ours=True)
        )
        self.controls = SessionControls(self.state, self._mark, self._connected)  # modes, config options
        self.turns = Turns(self, self.state, self._mark, cancel_grace)  # its prompts and their turns
        # Told whenever the turn or a pending permission changes what the sidebar says of this session.
        self.on_status: Callable[[], None] = lambda: None
        self.note_wire: Callable[[str], None] = lambda text: None  # a note in this session's inspector

    def start(self) -> None:
        self._sink.start()

    async def close(self) -> None:
        """End every task of this session and disconnect its viewers."""
        self.turns.closing()
        self.permissions.close()
        await self.terminals.close()
        await self.turns.close()
        await self._sink.stop()

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
        self.turns.submit(blocks, auto_sent=auto_sent)

    def drop_queued(self, reason: str) -> None:
        """The session could not be opened: the waiting prompt is not sent (it stays in the transcript)."""
        self.turns.drop_queued(reason)

    def submit_composed(self, text: str, kept: list[str], composer: ComposerAttachments) -> None:
        """Send what a tab's composer holds: its text and the attachments (by id) the user kept in it."""
        composed = composer.compose(text, kept, self.prompt_capabilities)  # PromptRejected is Refused
        self.submit_blocks(composed.blocks)
        composer.clear()

    def send_suggestion(self, generation: int, index: int, *, auto_sent: bool = False) -> None:
        """The user chose suggestion `index` of list `generation` (or turned on auto-send): send it;
        Refused if it is not there any more or the page could not show it whole (`refuse_unread`)."""
        try:
            chosen = self.find_suggestion(generation, index)
        except Refused as exc:
            raise Refused(f"{exc}; nothing was sent") from None
        refuse_unread(chosen, "sent")
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
        await self.turns.cancel()

    def take_back(self, prompt_id: str) -> WaitingPrompt:
        """A waiting prompt the person cancels or takes back to edit; Refused if it went out already."""
        return self.turns.take_back(prompt_id)

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
            self._mark(self.state.apply(request.tool_call))
        return await self.permissions.ask(request, ours=ours)

    def answer_permission(self, request_id: str, option_id: str) -> None:
        """The user chose an option; fails closed: an unknown, late or repeated answer approves nothing."""
        self.permissions.answer(request_id, option_id)

    def cancel_permissions(self) -> None:
        """Answer every open request "cancelled" (a cancel, an agent that exited)."""
        self.permissions.cancel()

    def _terminal_changed(self, terminal_id: str, output: TerminalOutput) -> None:
        self._mark(self.state.set_terminal(terminal_id, output))

    # --- what the agent says ----------------------------------------------------------------------------

    def apply(self, event: SessionEvent) -> None:
        if isinstance(event, SuggestionsEvent):
            self._offer(self.ledger.receive(event))
            return
        pending = self.state.pending_prompts
        self._mark(self.state.apply(event))
        if self.state.pending_prompts < pending:  # v2: the agent inserted (accepted) a prompt of ours
            self.ledger.prompt_accepted()

    def _offer(self, outcome: Outcome) -> None:
        for text in outcome.notices:
            self.notice(NoticeLevel.WARNING, f"prompt suggestions: {text}")
        if outcome.offered is not None:
            self._mark(self.state.set_suggestions(outcome.offered))

    def begin_replay(self) -> None:
        """`session/load` is about to replay history: nothing it sends is offered as a suggestion."""
        self.turns.stop_grace()
        self.ledger.begin_replay()
        self._mark(self.state.begin_replay())

    def end_replay(self) -> None:
        self.ledger.end_replay()
        self._mark(self.state.end_replay())
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
            self._mark(self.state.meet_agent(info, version))

    def adopt(self, opened: OpenedSession) -> None:
        """The session exists at the agent: take its id, modes and config options.

        It starts with an empty suggestion list: a restart must not keep offering the old session's.
        """
        self._mark(self.state.open(opened))
        self.turns.session_opened()

    # --- modes and config options -----------------------------------------------------------------------

    async def set_mode(self, mode_id: str) -> None:
        """Switch mode (`session/set_mode`) to one the agent offered; see `SessionControls`."""
        await self.controls.set_mode(mode_id)

    async def set_config_option(self, config_id: str, value: str | bool) -> None:
        """Set a config option the agent offered (`session/set_config_option`); see `SessionControls`."""
        await self.controls.set_config_option(config_id, value)

    def _connected(self, verb: str) -> tuple[AgentLink, str]:
        if self.agent is None or self.state.session_id is None:
            raise Refused(f"there is no session to {verb} yet")
        return self.agent, self.state.session_id

    # --- what the others change, and who is told -----------------------------------------------------

    @property
    def viewers(self) -> SinkT:
        """Whoever shows this session (the web layer's hub: its tabs subscribe there). Only the session
        marks what changed in it: everyone else asks it by a named method."""
        return self._sink

    def observe(self, observer: Callable[[set[str]], None]) -> None:
        """Tell `observer` every set of change keys from now on (the transcript keeper listens so)."""
        self._observers.append(observer)

    def _mark(self, keys: Iterable[str]) -> None:
        changed = set(keys)
        self._sink.mark(changed)
        for observer in self._observers:
            observer(changed)

    def notice(
        self, level: NoticeLevel, text: str, detail: str | None = None, *, failure: bool = False
    ) -> None:
        """Show a notice; `failure`: on the card of the agent's failure, when there is one."""
        self.show_notice(Notice(level=level, text=text, detail=detail), failure=failure)

    def show_notice(self, notice: Notice, *, failure: bool = False) -> None:
        self._mark(self.state.add_notice(notice, failure=failure))

    def renew_notice(self, notice: Notice, item_id: str | None) -> str:
        """Show `notice` in place of the notice entry `item_id` if it is still there, else as a new one;
        the id of the entry that shows it."""
        changed = self.state.transcript.renew_notice(notice, item_id)
        self._mark(changed)
        return next(iter(changed))

    def settle_failure(self, notice: Notice) -> None:
        """The agent runs again: the card of its last failure says so (no other card does)."""
        self._mark(self.state.transcript.settle_failure(notice))

    def set_agent_status(self, status: AgentStatus) -> None:
        self._mark(self.state.set_agent_status(status))

    def set_sign_in(self, sign_in: SignIn) -> None:
        self._mark(self.state.set_sign_in(sign_in))

    def set_sidebar(self, sidebar: Sidebar) -> None:
        self._mark(self.state.set_sidebar(sidebar))

    def reopen(self, session_id: str, title: str | None) -> None:
        """A stored session is being loaded or resumed: its id and stored title show meanwhile."""
        self._mark(self.state.reopen(session_id, title))

    def show_copy(self, copy: KeptCopy, transcript: Transcript) -> None:
        """This session shows a stored copy, read only."""
        self._mark(self.state.show_copy(copy, transcript))

    def protocol_logged(self) -> None:
        """A message of this session (or of its agent's connection) crossed the wire: for the inspector."""
        self._mark({Aspect.PROTOCOL_LOG})
