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
from webclient.domain.approval import WriteNotApproved, approves, protected_write_request
from webclient.domain.changes import SinkFactory, SinkT
from webclient.domain.files import FileAccess
from webclient.domain.prompt import ComposerAttachments, PromptRejected
from webclient.domain.protected import ProtectedPaths
from webclient.domain.state import (
    Aspect,
    FileWriteItem,
    PermissionItem,
    PermissionState,
    SessionState,
    TurnState,
)
from webclient.domain.suggestions import Outcome, SuggestionLedger, SuggestionPolicy
from webclient.domain.terminals import TerminalManager
from webclient.errors import AgentError, AgentExitedError, AgentRequestError, Refused

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
        protected: ProtectedPaths | None = None,
        cancel_grace: float = CANCEL_GRACE_SECONDS,
    ) -> None:
        """`protected`: writes there wait for the user's approval (None: no path is protected).
        `cancel_grace`: seconds after Cancel before an agent still in its turn counts as unresponsive."""
        self.local_id = local_id
        # The agent is known before the sink is made: a sink may depend on it (its protocol log does).
        self.state = SessionState(agent_key=agent_key)
        self.hub: SinkT = sink_factory(self.state)
        self.ledger = SuggestionLedger(policy)
        self.files = files
        # The commands the agent runs through us (`terminal/*`); each shows in the card that embeds it.
        self.terminals = TerminalManager(files, files.roots[0], self._terminal_changed)
        self.protected = protected
        self.cancel_grace = cancel_grace
        self.agent: AgentLink | None = None
        self.agent_key = agent_key  # which of the server's agents this session talks to
        # Told when a turn ends (the registry refreshes the agent's stored sessions then).
        self.turn_ended: Callable[[], None] | None = None
        # A prompt sent before `session/new` answered: it goes out as soon as the session exists.
        self._queued: tuple[PromptBlock, ...] | None = None
        # Open permission requests: item id -> the future the agent's request waits on.
        self._permissions: dict[str, asyncio.Future[PermissionOutcome]] = {}
        # Those of them we asked ourselves (protected writes): the end of the turn answers them too.
        self._approvals: set[str] = set()
        # The prompts running: one at a time in ACP v1; in v2 the agent takes more (it queues them).
        self._turns: set[asyncio.Task[None]] = set()
        self._grace: asyncio.Task[None] | None = None
        self._cancel_watch: asyncio.Task[None] | None = None
        self._closing = False
        # Told whenever the turn or a pending permission changes what the sidebar says of this session.
        self.on_status: Callable[[], None] = _nothing

    def start(self) -> None:
        self.hub.start()

    async def close(self) -> None:
        """End every task of this session and disconnect its viewers."""
        self._closing = True
        self.cancel_permissions()
        await self.terminals.close()
        for task in (*self._turns, self._grace, self._cancel_watch):
            if task is not None:
                await cancel_and_wait(task)
        await self.hub.stop()

    async def wait_turn(self) -> None:
        """Until the running turns (if any) have ended."""
        if self._turns:
            await asyncio.wait(list(self._turns))

    @property
    def prompt_capabilities(self) -> PromptCapabilities:
        info = self.agent.info if self.agent else None
        return info.capabilities.prompt if info else PromptCapabilities()

    # --- prompts ----------------------------------------------------------------------------------------

    def submit_prompt(self, parts: Sequence[ContentPart], *, auto_sent: bool = False) -> None:
        """Start a turn with a prompt of these parts; see `submit_blocks`."""
        self.submit_blocks([PromptBlock(part=part) for part in parts], auto_sent=auto_sent)

    def submit_blocks(self, blocks: Sequence[PromptBlock], *, auto_sent: bool = False) -> None:
        """Start a turn with this prompt; raises Refused when the session cannot take one now.

        The transcript shows the blocks' parts; the agent layer sends each block (one an agent wrote, a
        chosen suggestion's, goes out exactly as the agent sent it). Before the agent's `session/new` has
        answered, the prompt waits and goes out once it has.
        """
        if not self.state.can_prompt or self.agent is None:
            raise Refused(f"the agent cannot take a prompt now ({self.state.display_status})")
        if not blocks:
            raise Refused("an empty prompt was not sent")
        parts = [block.part for block in blocks]
        self.hub.mark(self.state.add_user_message(parts, auto_sent=auto_sent))
        self.hub.mark(self.state.set_turn(TurnState.WORKING))
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
        self.hub.mark(self.state.set_queued(False) | self.state.set_turn(TurnState.IDLE))
        self.notice(NoticeLevel.WARNING, f"your last prompt was not sent: {reason}")

    def submit_composed(self, text: str, kept: list[str], composer: ComposerAttachments) -> None:
        """Send what a tab's composer holds: its text and the attachments (by id) the user kept in it."""
        try:
            composed = composer.compose(text, kept, self.prompt_capabilities)
        except PromptRejected as exc:
            raise Refused(str(exc)) from None
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
        self.hub.mark(self.state.set_turn(TurnState.CANCELLING))
        self.on_status()
        self.cancel_permissions()  # the protocol answers a pending request "cancelled" on session/cancel
        if self.state.keyed_messages:  # v2: the client SHOULD mark the work's unfinished tool calls
            self.hub.mark(self.state.cancel_unfinished_tool_calls())
        self._cancel_watch = asyncio.create_task(self._watch_cancel(), name="cancel-grace")
        try:
            await self.agent.cancel(self.state.session_id)
        except AgentError as exc:
            raise Refused(str(exc)) from None

    async def _watch_cancel(self) -> None:
        """An agent that has not ended its turn within the grace period ignored the cancel: say so, and
        the page offers to stop it (the turn would otherwise stay "cancelling" for ever)."""
        await asyncio.sleep(self.cancel_grace)
        if self.state.turn is TurnState.CANCELLING:
            self.hub.mark(self.state.set_turn(TurnState.UNRESPONSIVE))
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
            self.notice(NoticeLevel.ERROR, str(exc), error_detail(exc))
        finally:
            if not self._other_turns_running():
                self._end_turn()

    def _other_turns_running(self) -> bool:
        current = asyncio.current_task()
        return any(turn is not current and not turn.done() for turn in self._turns)

    def _end_turn(self) -> None:
        """The last running prompt ended: the session is idle again."""
        self.cancel_permissions(self._approvals)  # a write asked about in a turn dies with it
        if self._cancel_watch is not None:
            self._cancel_watch.cancel()
        self.hub.mark(self.state.set_turn(TurnState.IDLE) | self.state.settle_pending())
        self.on_status()
        if not self._closing:
            self._grace = asyncio.create_task(self._check_withdrawal(), name="suggestion-grace")
            if self.turn_ended is not None:
                self.turn_ended()

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
        item = PermissionItem(request=request, asked_by_client=ours)
        future: asyncio.Future[PermissionOutcome] = asyncio.get_running_loop().create_future()
        self._permissions[item.id] = future
        if ours:
            self._approvals.add(item.id)
        self.hub.mark(self.state.add_item(item))
        self.on_status()
        try:
            return await future
        finally:
            self._permissions.pop(item.id, None)
            self._approvals.discard(item.id)
            if item.state is PermissionState.PENDING:  # the agent gave up waiting, or we are closing
                item.state = PermissionState.CANCELLED
                self.hub.mark({item.id})
            if not self._closing:
                self.on_status()

    def answer_permission(self, request_id: str, option_id: str) -> None:
        """The user chose an option; fails closed: an unknown, late or repeated answer approves nothing."""
        future = self._permissions.get(request_id)
        item = self.state.item(request_id)
        if future is None or future.done() or not isinstance(item, PermissionItem):
            raise Refused("that permission request is no longer pending; nothing was approved")
        option = item.request.option(option_id)
        if option is None:
            raise Refused("that is not one of the agent's options; nothing was approved")
        item.state = PermissionState.ANSWERED
        item.chosen = option.name or option_id
        future.set_result(PermissionOutcome(option_id=option_id))
        self.hub.mark({item.id})
        self.on_status()

    def cancel_permissions(self, only: set[str] | None = None) -> None:
        """Answer every open request (or those in `only`) "cancelled" (a cancel, a closed session, an agent
        that exited, the end of a turn)."""
        for request_id, future in list(self._permissions.items()):
            if only is not None and request_id not in only:
                continue
            if not future.done():
                future.set_result(PermissionOutcome.cancelled())
            item = self.state.item(request_id)
            if isinstance(item, PermissionItem) and item.state is PermissionState.PENDING:
                item.state = PermissionState.CANCELLED
                self.hub.mark({item.id})

    @property
    def has_pending_permission(self) -> bool:
        return any(not f.done() for f in self._permissions.values())

    async def read_text_file(self, path: str, line: int | None, limit: int | None) -> str:
        """`fs/read_text_file`, inside the session's directories only (FileAccessError otherwise)."""
        return await self.files.read_text_async(path, line, limit)

    async def write_text_file(self, path: str, content: str) -> None:
        """`fs/write_text_file`, inside the session's directories only; the write shows in the transcript.

        A write to a protected path waits for the user's Allow once; anything else raises
        `WriteNotApproved` and the file stays as it was.
        """
        target = self.files.resolve(path)  # refused outright first: a path we never write needs no question
        if self.protected is not None and self.protected.is_protected(path):
            await self._approve_write(path, content)
            if self.files.resolve(path) != target:  # a symlink on the way was changed while we asked
                raise WriteNotApproved(
                    f"{path!r} leads somewhere else than when you allowed the write; nothing was written"
                )
        result = await self.files.write_text_async(path, content)
        item = FileWriteItem(path=str(result.path), old_text=result.old_text, new_text=result.new_text)
        self.hub.mark(self.state.add_item(item))

    def _terminal_changed(self, terminal_id: str, output: TerminalOutput) -> None:
        self.hub.mark(self.state.set_terminal(terminal_id, output))

    async def _approve_write(self, path: str, content: str) -> None:
        refusal = f"{path!r} is protected (a write there can run code)"
        old_text = await self.files.existing_text_async(path)
        # Checked after the read, with no await between it and the question's registration: a turn
        # that ends meanwhile cannot leave the question open (its end answers it, or it is never asked).
        if self.state.turn is not TurnState.WORKING or self.state.session_id is None:
            # Outside a turn, or after Cancel, there is nobody to ask: the end of the turn means no.
            raise WriteNotApproved(
                f"{refusal} and no turn is running to ask the user in; nothing was written"
            )
        request = protected_write_request(self.state.session_id, path, old_text, content)
        if not approves(await self.request_permission(request, ours=True)):
            raise WriteNotApproved(f"{refusal} and the user did not allow the write; nothing was written")

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
        self.hub.mark(self.state.set_turn(TurnState.WORKING))  # no prompt while the replay runs

    def end_replay(self) -> None:
        self.ledger.end_replay()
        self.state.close_open_message()
        self.hub.mark(self.state.set_suggestions(()) | self.state.set_turn(TurnState.IDLE))
        self.on_status()

    # --- modes and config options -----------------------------------------------------------------------

    def adopt(self, opened: OpenedSession) -> None:
        """The session exists at the agent: take its id, modes and config options.

        It starts with an empty suggestion list: a restart must not keep offering the old session's.
        """
        self.state.session_id = opened.session_id
        self.hub.mark(self.state.set_modes(opened.modes, opened.current_mode_id))
        self.hub.mark(self.state.set_config_options(opened.config_options))
        self.hub.mark(self.state.set_suggestions(()) | {Aspect.STATUS})
        if self._queued is not None:
            self._send_queued()

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
            raise Refused(f"the agent did not switch the mode: {exc}") from None
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
            raise Refused(f"the agent did not change {option.name!r}: {exc}") from None
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
