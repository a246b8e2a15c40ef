"""The state of one ACP session: the single source of truth that every browser tab renders.

`SessionState` is changed only by its own methods, its transitions: `apply` takes our event models, the
others say what the user or the session's lifecycle did. Each returns the keys of what changed, which the
live layer turns into HTML fragments. The transcript entries live in `items`, the sidebar's data in
`sidebar`. No I/O here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from webclient.acp.controls import ConfigOption, Mode
from webclient.acp.models import (
    AgentInfo,
    AgentStatus,
    Command,
    CommandsEvent,
    CompactionEvent,
    ConfigOptionsEvent,
    ContentPart,
    MessageChunk,
    MessageUpsert,
    ModeEvent,
    Notice,
    OpenedSession,
    PlanEntry,
    PlanEvent,
    SessionEvent,
    SessionInfoEvent,
    StateEvent,
    Suggestion,
    SuggestionsEvent,
    TerminalEvent,
    TerminalOutput,
    ToolCallEvent,
    TurnAnswered,
    UsageEvent,
)
from webclient.domain.activity import Activity
from webclient.domain.aspects import Aspect as Aspect  # re-exported: the aspects are told by the state
from webclient.domain.items import (
    FileWriteItem,
    PermissionItem,
    PermissionState,
    ToolCallItem,
)
from webclient.domain.kept.entries import KeptCopy
from webclient.domain.prompt_queue import PromptQueue
from webclient.domain.session_facts import SessionFacts
from webclient.domain.sidebar import Sidebar, changed_parts
from webclient.domain.sign_in import SignIn
from webclient.domain.transcript import Transcript
from webclient.domain.turn import TurnState as TurnState  # re-exported: the turn is told by the state


@dataclass
class SessionState(SessionFacts):
    """Transcript and status of one session. `session_id` is the agent's id once the session exists."""

    session_id: str | None = None
    agent_status: AgentStatus = AgentStatus.STARTING
    agent_key: str = ""  # which of the server's agents this session talks to
    workspace: str = ""  # the session's directory: the page names files inside it relative to it
    agent_label: str = ""  # that agent's name in the settings ("Claude"), or its command's
    agent_name: str = ""  # what the agent calls itself in `initialize`
    agent_id: str = ""  # the agent's own name for itself (agentInfo.name), e.g. to recognise the demo agent
    accepts_images: bool = False  # the agent's promptCapabilities.image: offer to attach images
    protocol_version: int = 1  # the ACP version the agent's connection speaks
    # ACP v2's `state_update`: running, requires_action, idle, or a newer state (None: not said yet).
    agent_state: str | None = None
    turn: TurnState = TurnState.IDLE
    plan: tuple[PlanEntry, ...] = ()
    commands: tuple[Command, ...] = ()
    available_modes: tuple[Mode, ...] = ()
    current_mode_id: str | None = None
    config_options: tuple[ConfigOption, ...] = ()
    title: str | None = None
    usage: UsageEvent | None = None
    sign_in: SignIn = field(default_factory=SignIn)
    queued: bool = False  # a prompt waits for the session to exist
    waiting: PromptQueue = field(default_factory=PromptQueue)  # prompts sent while a turn ran
    # The list on offer, and a counter that changes with every replacement: the browser names the list
    # it acted on, so a choice made on a list that was replaced meanwhile is refused, never misapplied.
    suggestions: tuple[Suggestion, ...] = ()
    suggestions_generation: int = 0
    sidebar: Sidebar = field(default_factory=Sidebar)
    transcript: Transcript = field(default_factory=Transcript)
    activity: Activity = field(default_factory=Activity)  # ACP v2: background work, compactions
    kept: KeptCopy | None = None  # a stored copy shown read only: no agent attached, no prompt taken
    _plans: dict[str | None, tuple[PlanEntry, ...]] = field(default_factory=dict)

    # --- transitions ------------------------------------------------------------------------------------

    def apply(self, event: SessionEvent) -> set[str]:
        """Apply one event from the agent; return the keys of what changed."""
        if isinstance(event, MessageChunk):
            return self.transcript.add_chunk(event, keyed=self.keyed_messages)
        if isinstance(event, MessageUpsert):
            return self.transcript.upsert_message(event)
        if isinstance(event, TurnAnswered):  # v1: the answer is complete
            return self.transcript.close_open_message()
        if isinstance(event, StateEvent | CompactionEvent):  # ACP v2: the agent's state and activity
            self.agent_state = event.state if isinstance(event, StateEvent) else self.agent_state
            return {Aspect.STATUS} | self.activity.apply(event, self.add_notice)
        if isinstance(event, TerminalEvent):  # (background work shows in the status region too)
            return self.transcript.update_terminal(event) | self.activity.shown_in(Aspect.STATUS)
        if isinstance(event, Notice):
            return self.add_notice(event)
        if isinstance(event, ToolCallEvent):
            return self.transcript.tool_call(event) | self.activity.shown_in(Aspect.STATUS)
        if isinstance(event, SuggestionsEvent):
            return set()  # validated against the negotiated capabilities first: see set_suggestions
        return self._session_update(event)

    def add_user_message(self, parts: Sequence[ContentPart], *, auto_sent: bool = False) -> set[str]:
        """Record a prompt the user sent (agents do not echo it back during a live turn).

        Sending stops offering the current suggestions: they were predicted for the conversation
        before this prompt.
        """
        first = self.transcript.first_user_message() is None
        added = self.transcript.add_user_message(parts, auto_sent=auto_sent, pending=self.keyed_messages)
        # An untitled session is named after its first prompt until the agent names it.
        named = {Aspect.DETAILS} if first and not self.title else set()
        return added | named | self.set_suggestions(())

    def add_item(self, item: PermissionItem | FileWriteItem) -> set[str]:
        """A permission request (pending) or a file the agent wrote joins the transcript."""
        return self.transcript.add_item(item)

    def answer_permission(self, item_id: str, chosen: str) -> set[str]:
        """The user answered a pending permission request with the option named `chosen`."""
        return self.transcript.settle_permission(item_id, PermissionState.ANSWERED, chosen)

    def withdraw_permission(self, item_id: str) -> set[str]:
        """A permission request still pending will never be answered (a cancel, the end of a turn, an
        agent that gave up or exited): it shows as cancelled. An answered one stays answered."""
        return self.transcript.settle_permission(item_id, PermissionState.CANCELLED)

    def set_sidebar(self, sidebar: Sidebar) -> set[str]:
        sessions, copies = changed_parts(self.sidebar, sidebar)
        self.sidebar = sidebar
        return {a for a, changed in ((Aspect.SESSIONS, sessions), (Aspect.KEPT_COPIES, copies)) if changed}

    def set_suggestions(self, suggestions: tuple[Suggestion, ...]) -> set[str]:
        """Replace the list on offer (an empty tuple offers nothing)."""
        if not suggestions and not self.suggestions:
            return set()
        self.suggestions = suggestions
        self.suggestions_generation += 1
        return {Aspect.SUGGESTIONS}

    def add_notice(self, notice: Notice, *, failure: bool = False) -> set[str]:
        """Show a notice; one of the same kind as the last since the user's last prompt joins it (an agent
        that logs to stdout makes one a line), and the message being streamed stays open, uncut."""
        return self.transcript.add_notice(notice, failure=failure)  # one card per failure of the agent

    def set_agent_status(self, status: AgentStatus) -> set[str]:
        self.agent_status = status
        if status is AgentStatus.EXITED:
            self.turn = TurnState.IDLE
        return {Aspect.STATUS}

    def set_turn(self, turn: TurnState) -> set[str]:
        self.turn = turn
        if turn is TurnState.IDLE:
            self.transcript.close_open_message()
        return {Aspect.STATUS}

    def set_terminal(self, terminal_id: str, output: TerminalOutput) -> set[str]:
        """A client terminal's output or exit changed: the cards that embed it change."""
        return self.transcript.set_terminal(terminal_id, output)

    def set_queued(self, queued: bool) -> set[str]:
        self.queued = queued
        return {Aspect.STATUS}

    def set_sign_in(self, sign_in: SignIn) -> set[str]:
        self.sign_in = sign_in
        return {Aspect.SIGN_IN, Aspect.STATUS}  # the badge tells a chosen sign-in from one to choose

    def set_modes(self, modes: tuple[Mode, ...], current_mode_id: str | None) -> set[str]:
        """The modes a session/new, load or resume result offers (none: the agent has no modes)."""
        self.available_modes = modes
        self.current_mode_id = current_mode_id
        return {Aspect.DETAILS}

    def set_current_mode(self, mode_id: str) -> set[str]:
        self.current_mode_id = mode_id
        return {Aspect.DETAILS}

    def set_config_options(self, options: tuple[ConfigOption, ...]) -> set[str]:
        self.config_options = options
        return {Aspect.DETAILS}

    # --- the turn -------------------------------------------------------------------------------------

    def begin_turn(self, parts: Sequence[ContentPart], *, auto_sent: bool = False) -> set[str]:
        """The user sent a prompt: it shows in the transcript, and the session works on it."""
        return self.add_user_message(parts, auto_sent=auto_sent) | self.set_turn(TurnState.WORKING)

    def cancel_turn(self) -> set[str]:
        """Cancel was asked for. ACP v2: tool calls still pending or in progress show as cancelled at
        once; an update from the agent afterwards still says what really became of them."""
        cancelled = self.transcript.cancel_unfinished_tool_calls() if self.keyed_messages else set()
        return self.set_turn(TurnState.CANCELLING) | cancelled

    def ignore_cancel(self) -> set[str]:
        """The agent went on past the grace period after Cancel: only stopping it ends the turn."""
        return self.set_turn(TurnState.UNRESPONSIVE)

    def open_tool_calls(self) -> list[ToolCallItem]:
        """Cards the agent left pending or in progress, but for its (ACP v2) background tool calls."""
        return self.transcript.open_tool_calls(self.activity.tool_calls)

    def end_turn(self) -> set[str]:
        """No prompt runs any more: one still pending was never taken in (refused, or the agent went
        away), so it stops saying it waits; a tool call the agent left open shows as not finished."""
        return self.set_turn(TurnState.IDLE) | self.transcript.turn_over(self.activity.tool_calls)

    def drop_queued(self) -> set[str]:
        """The prompt that waited for the session to exist will not go out (it stays in the transcript)."""
        return self.set_queued(False) | self.set_turn(TurnState.IDLE)

    def begin_replay(self) -> set[str]:
        """`session/load` replays the history: no prompt goes out meanwhile."""
        return self.set_turn(TurnState.WORKING)

    def end_replay(self) -> set[str]:
        """The replay ended: the next chunk starts a new message, and nothing the replay sent is offered."""
        self.transcript.close_open_message()
        return self.set_suggestions(()) | self.set_turn(TurnState.IDLE)

    # --- the session's lifecycle ------------------------------------------------------------------------

    def meet_agent(self, info: AgentInfo, protocol_version: int) -> set[str]:
        """This session talks to a new agent process (the first, or one after a restart): what the
        agent says of itself; the old process's agent session, and what it said of its state, are gone."""
        self.session_id = None
        self.agent_name = info.display_name + (f" {info.version}" if info.version else "")
        self.agent_id = info.name
        self.accepts_images = info.capabilities.prompt.image
        self.protocol_version = protocol_version
        self.agent_state, self.activity = None, Activity()
        return {Aspect.DETAILS}

    def show_copy(self, copy: KeptCopy, transcript: Transcript) -> set[str]:
        """This session shows a stored copy, read only: its title and entries; no agent is attached."""
        self.kept, self.title, self.transcript = copy, copy.title, transcript
        return {Aspect.DETAILS, Aspect.STATUS}

    def reopen(self, session_id: str, title: str | None) -> set[str]:
        """A session the agent keeps is being loaded or resumed: its id is known before the agent answers,
        and its stored title shows until the agent names it otherwise."""
        self.session_id = session_id
        self.title = title
        return {Aspect.DETAILS}

    def open(self, opened: OpenedSession) -> set[str]:
        """The session exists at the agent: its id, modes and config options. It starts with an empty
        suggestion list: a restart must not keep offering the old session's."""
        self.session_id = opened.session_id
        modes = self.set_modes(opened.modes, opened.current_mode_id)
        options = self.set_config_options(opened.config_options)
        if opened.commands is not None:  # ACP v2 lists the commands in the answer too
            self.commands, modes = opened.commands, modes | {Aspect.COMMANDS}
        return modes | options | self.set_suggestions(()) | {Aspect.STATUS}

    # --- internals --------------------------------------------------------------------------------------

    def _session_update(self, event: SessionEvent) -> set[str]:
        """What the agent says of the session itself: its plan, commands, mode, options, title, usage."""
        if isinstance(event, PlanEvent | CommandsEvent | ModeEvent | ConfigOptionsEvent):
            # Another update kind ends the streamed message (a title or the usage come alongside one).
            self.transcript.close_open_message()
        if isinstance(event, PlanEvent):
            self._plans[event.plan_id] = event.entries
            self.plan = tuple(entry for entries in self._plans.values() for entry in entries)
            return {Aspect.PLAN}
        if isinstance(event, CommandsEvent):
            self.commands = event.commands
            return {Aspect.COMMANDS}
        if isinstance(event, ModeEvent):
            self.current_mode_id = event.current_mode_id
            return {Aspect.DETAILS}
        if isinstance(event, ConfigOptionsEvent):
            self.config_options = event.options
            return {Aspect.DETAILS}
        if isinstance(event, SessionInfoEvent):
            return self._session_info(event)
        if isinstance(event, UsageEvent):
            self.usage = event
            return {Aspect.DETAILS}
        raise TypeError(f"unhandled event {type(event).__name__}")

    def _session_info(self, event: SessionInfoEvent) -> set[str]:
        if "title" in event.model_fields_set:  # sent as null: the agent cleared it
            self.title = event.title
        return {Aspect.DETAILS}
