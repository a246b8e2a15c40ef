"""The state of one ACP session: the single source of truth that every browser tab renders.

`SessionState.apply` takes our event models and returns the keys of what changed, which the live layer
turns into HTML fragments. No I/O here.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from webclient.acp.controls import ConfigOption, Mode
from webclient.acp.models import (
    AgentStatus,
    AuthMethod,
    Command,
    CommandsEvent,
    ConfigOptionsEvent,
    ContentPart,
    MessageChunk,
    MessageUpsert,
    ModeEvent,
    Notice,
    PermissionOption,
    PermissionRequest,
    PlanEntry,
    PlanEvent,
    SessionEvent,
    SessionInfoEvent,
    StateEvent,
    Suggestion,
    SuggestionsEvent,
    TerminalEvent,
    TerminalExit,
    TerminalOutput,
    TerminalStream,
    TextPart,
    ToolCallContent,
    ToolCallEvent,
    UsageEvent,
)


class Aspect(StrEnum):
    """A part of a session's state beside its transcript entries; what changed is told by these."""

    STATUS = "status"  # the agent's lifecycle and the turn
    DETAILS = "details"  # agent name, title, usage, modes and config options
    PLAN = "plan"
    SIGN_IN = "sign-in"
    SUGGESTIONS = "suggestions"
    SESSIONS = "sessions"  # the other sessions, live and stored
    COMMANDS = "commands"
    PROTOCOL_LOG = "protocol-log"  # a message of this session crossed the wire


KEPT_REPEATS = 20  # repeats of a notice kept for their details; the count goes on


class TurnState(StrEnum):
    IDLE = "idle"
    WORKING = "working"
    CANCELLING = "cancelling"
    # Cancel was asked for and the agent went on past the grace period: only stopping it ends the turn.
    UNRESPONSIVE = "unresponsive"


_ids = itertools.count(1)
TITLE_CHARS = 60  # a title made from the first prompt is cut to this many characters


def _new_id(prefix: str) -> str:
    return f"{prefix}-{next(_ids)}"


@dataclass
class MessageItem:
    """A user message, an agent message or a thought; consecutive chunks of one role merge into it."""

    role: Literal["user", "agent", "thought"]
    parts: list[ContentPart] = field(default_factory=list)
    message_id: str | None = None
    auto_sent: bool = False
    # ACP v2: a prompt we sent that the agent has not yet inserted into its history (its user message
    # replaces this local copy when it does).
    pending: bool = False
    id: str = field(default_factory=lambda: _new_id("msg"))

    def add(self, part: ContentPart) -> None:
        last = self.parts[-1] if self.parts else None
        if isinstance(part, TextPart) and isinstance(last, TextPart):
            self.parts[-1] = TextPart(text=last.text + part.text)
        else:
            self.parts.append(part)

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))


@dataclass
class NoticeItem:
    """A notice, and the ones of the same kind that followed it since the user's last prompt.

    They show as one notice with a count; only the latest few repeats are kept, so an agent that logs a
    line a millisecond to stdout costs one notice of bounded size.
    """

    notice: Notice
    repeats: list[Notice] = field(default_factory=list)  # the latest KEPT_REPEATS of the repeats
    count: int = 1
    id: str = field(default_factory=lambda: _new_id("notice"))

    @property
    def all(self) -> list[Notice]:
        return [self.notice, *self.repeats]

    def add(self, notice: Notice) -> None:
        self.count += 1
        self.repeats.append(notice)
        del self.repeats[:-KEPT_REPEATS]

    def same_kind(self, notice: Notice) -> bool:
        return notice.level == self.notice.level and notice_kind(notice) == notice_kind(self.notice)


def notice_kind(notice: Notice) -> str:
    """What a notice is about: the text before its first colon ("prompt suggestions: ..."), or all of it."""
    return notice.text.split(":", 1)[0].strip().lower()


@dataclass
class ToolCallItem:
    """One card per toolCallId; `tool_call_update` fills in only the fields it sends."""

    tool_call_id: str
    title: str = ""
    kind: str | None = None
    status: str | None = None
    content: tuple[ToolCallContent, ...] = ()
    locations: tuple[Any, ...] = ()
    raw_input: Any = None
    raw_output: Any = None
    streamed_terminals: set[str] = field(default_factory=set)  # output the agent sent in `_meta`
    id: str = field(default_factory=lambda: _new_id("tool"))

    @property
    def terminal_ids(self) -> set[str]:
        """The terminals this card embeds (its content entries of kind `terminal`)."""
        return {c.terminal_id for c in self.content if c.kind == "terminal" and c.terminal_id}

    def merge(self, event: ToolCallEvent) -> None:
        """Fields sent replace, fields cleared (v2's null) go back to nothing, appended content adds."""
        for name in ("title", "kind", "status", "content", "locations", "raw_input", "raw_output"):
            value = getattr(event, name)
            if value is not None:
                setattr(self, name, value)
            elif name in event.cleared:
                setattr(self, name, _CLEARED[name])
        if event.appended:
            self.content = (*self.content, *event.appended)


_CLEARED: dict[str, Any] = {
    "title": "",
    "kind": None,
    "status": None,
    "content": (),
    "locations": (),
    "raw_input": None,
    "raw_output": None,
}


# How much of the output an agent streams in a tool call's `_meta` a session keeps (the tail).
MAX_STREAMED_CHARS = 1024 * 1024


@dataclass
class TerminalView:
    """What a tool-call card shows of a terminal: a client terminal's output as last captured, or the
    output an agent streamed in `_meta` (codex-acp). `truncated`: earlier output was dropped."""

    output: str = ""
    truncated: bool = False
    exit: TerminalExit | None = None
    command: str | None = None  # what an ACP v2 agent says its terminal runs

    def stream(self, chunk: TerminalStream) -> None:
        self.output += chunk.data
        if len(self.output) > MAX_STREAMED_CHARS:
            self.output = self.output[-MAX_STREAMED_CHARS:]
            self.truncated = True
        if chunk.exited:
            self.exit = TerminalExit(exit_code=chunk.exit_code)

    def update(self, event: TerminalEvent) -> None:
        """An ACP v2 display terminal: a snapshot replaces the output, a chunk adds to it."""
        if event.command is not None:
            self.command = event.command
        if event.output is not None:
            self.output, self.truncated = event.output, False
        self.stream(TerminalStream(data=event.appended))
        if event.exit is not None:
            self.exit = event.exit


class PermissionState(StrEnum):
    PENDING = "pending"
    ANSWERED = "answered"
    CANCELLED = "cancelled"


@dataclass
class PermissionItem:
    """The agent asks before it acts; the user answers with one of the agent's own options."""

    request: PermissionRequest
    state: PermissionState = PermissionState.PENDING
    chosen: str | None = None  # the name of the option the user chose
    # True when webclient asks, not the agent: a write to a protected path waits for the user.
    asked_by_client: bool = False
    id: str = field(default_factory=lambda: _new_id("perm"))

    @property
    def tool_call(self) -> ToolCallEvent:
        return self.request.tool_call

    @property
    def options(self) -> tuple[PermissionOption, ...]:
        return self.request.options

    @property
    def title(self) -> str:
        return self.request.title


@dataclass
class FileWriteItem:
    """The agent wrote a file through us (`fs/write_text_file`)."""

    path: str
    old_text: str | None
    new_text: str
    # A tool call of this session already shows this very change as a diff: the write only names it.
    diff_shown: bool = False
    id: str = field(default_factory=lambda: _new_id("write"))


Item = MessageItem | NoticeItem | ToolCallItem | PermissionItem | FileWriteItem


@dataclass(frozen=True)
class SessionLink:
    """A live session in the sidebar, with the name of the agent it talks to."""

    local_id: str
    title: str
    status: str
    current: bool
    agent: str = ""


@dataclass(frozen=True)
class AgentChoice:
    """An agent "New session" can start a session with."""

    key: str
    name: str


@dataclass(frozen=True)
class SignIn:
    """What the page shows while the agent waits for a sign-in: every method it offers, the one being
    tried, what went wrong last, and for terminal methods the command to run."""

    methods: tuple[AuthMethod, ...] = ()
    pending: str | None = None
    error: str | None = None
    commands: tuple[tuple[str, str], ...] = ()  # (method id, command line) for terminal methods

    @property
    def active(self) -> bool:
        return bool(self.methods)

    def command(self, method_id: str) -> str:
        return dict(self.commands).get(method_id, "")


@dataclass(frozen=True)
class StoredSession:
    """A session the agent keeps (from `session/list`) that can be loaded or resumed."""

    session_id: str
    title: str | None
    updated_at: str | None


@dataclass(frozen=True)
class Sidebar:
    live: tuple[SessionLink, ...] = ()
    stored: tuple[StoredSession, ...] = ()
    can_load: bool = False
    can_resume: bool = False
    can_list: bool = False
    can_delete: bool = False
    agents: tuple[AgentChoice, ...] = ()
    current_agent: str = ""


@dataclass
class SessionState:
    """Transcript and status of one session. `session_id` is the agent's id once the session exists."""

    session_id: str | None = None
    agent_status: AgentStatus = AgentStatus.STARTING
    agent_key: str = ""  # which of the server's agents this session talks to
    agent_label: str = ""  # that agent's name in the settings ("Claude"), or its command's
    agent_name: str = ""  # what the agent calls itself in `initialize`
    agent_id: str = ""  # the agent's own name for itself (agentInfo.name), e.g. to recognise the demo agent
    accepts_images: bool = False  # the agent's promptCapabilities.image: offer to attach images
    protocol_version: int = 1  # the ACP version the agent's connection speaks
    # ACP v2's `state_update`: running, requires_action, idle, or a newer state (None: not said yet).
    agent_state: str | None = None
    turn: TurnState = TurnState.IDLE
    items: list[Item] = field(default_factory=list)
    plan: tuple[PlanEntry, ...] = ()
    commands: tuple[Command, ...] = ()
    available_modes: tuple[Mode, ...] = ()
    current_mode_id: str | None = None
    config_options: tuple[ConfigOption, ...] = ()
    title: str | None = None
    usage: UsageEvent | None = None
    sign_in: SignIn = field(default_factory=SignIn)
    queued: bool = False  # a prompt waits for the session to exist
    # The list on offer, and a counter that changes with every replacement: the browser names the list
    # it acted on, so a choice made on a list that was replaced meanwhile is refused, never misapplied.
    suggestions: tuple[Suggestion, ...] = ()
    suggestions_generation: int = 0
    sidebar: Sidebar = field(default_factory=Sidebar)
    terminals: dict[str, TerminalView] = field(default_factory=dict)  # by terminal id
    _tool_calls: dict[str, ToolCallItem] = field(default_factory=dict)
    _open_message: MessageItem | None = None
    _plans: dict[str | None, tuple[PlanEntry, ...]] = field(default_factory=dict)
    _messages: dict[tuple[str, str], MessageItem] = field(default_factory=dict)  # v2: by (role, id)

    # --- queries ----------------------------------------------------------------------------------------

    @property
    def display_status(self) -> str:
        """What the status badge says: the agent's lifecycle, "opening" until `session/new` answered,
        or the turn while the agent is ready."""
        opening = self.session_id is None and (self.turn is TurnState.IDLE or self.queued)
        if self.agent_status is AgentStatus.READY and opening:
            return "opening"
        if self.agent_status is AgentStatus.READY and self.turn is not TurnState.IDLE:
            return self.turn.value
        return self.agent_status.value

    @property
    def needs_answer(self) -> bool:
        """A permission request waits for the user."""
        return any(isinstance(i, PermissionItem) and i.state is PermissionState.PENDING for i in self.items)

    @property
    def session_status(self) -> str:
        """The state the sidebar shows: working, needs-answer, ready or exited (or starting, sign-in)."""
        if self.agent_status is AgentStatus.READY and self.needs_answer:
            return "needs-answer"
        status = self.display_status
        return "working" if status == TurnState.CANCELLING.value else status

    @property
    def display_title(self) -> str:
        """The agent's title for the session, else the first prompt's first line, never a raw id."""
        if self.title and self.title.strip():
            return self.title.strip()
        first = next((i for i in self.items if isinstance(i, MessageItem) and i.role == "user"), None)
        line = next((ln.strip() for ln in (first.text if first else "").splitlines() if ln.strip()), "")
        if not line:
            return "New session"
        return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"

    @property
    def auth_methods(self) -> tuple[AuthMethod, ...]:
        return self.sign_in.methods

    @property
    def can_prompt(self) -> bool:
        """Whether a prompt may go out now. ACP v2 agents take one in any state (they queue it or steer
        with it), so only a cancel in progress holds it back there; v1 has one turn at a time."""
        if self.agent_status is not AgentStatus.READY:
            return False
        if self.protocol_version >= 2:
            return self.turn in (TurnState.IDLE, TurnState.WORKING)
        return self.turn is TurnState.IDLE

    @property
    def keyed_messages(self) -> bool:
        """ACP v2: messages are upserts by id, and the agent inserts the user's prompt itself."""
        return self.protocol_version >= 2

    @property
    def shows_mode_selector(self) -> bool:
        """Whether the header shows the `modes` selector: not when a config option of category `mode`
        offers the same choice (ACP: prefer config options; agents send both for older clients)."""
        return bool(self.available_modes) and not any(o.category == "mode" for o in self.config_options)

    @property
    def mode_names(self) -> tuple[str, ...]:
        """The agent's modes by name: its `modes`, or (ACP v2 has no modes) its config option of
        category `mode`."""
        if self.available_modes:
            return tuple(mode.name for mode in self.available_modes)
        option = next((o for o in self.config_options if o.category == "mode" and o.kind == "select"), None)
        return tuple(c.name for group in option.groups for c in group.choices) if option else ()

    def tool_card(self, tool_call_id: str) -> ToolCallItem | None:
        """The card of a tool call, if the agent sent one (a permission request may come without)."""
        return self._tool_calls.get(tool_call_id)

    def item(self, item_id: str) -> Item | None:
        return next((i for i in self.items if i.id == item_id), None)

    # --- transitions ------------------------------------------------------------------------------------

    def apply(self, event: SessionEvent) -> set[str]:
        """Apply one event from the agent; return the keys of what changed."""
        if isinstance(event, MessageChunk):
            return self._add_chunk(event)
        if isinstance(event, MessageUpsert):
            return self._upsert_message(event)
        if isinstance(event, StateEvent):
            self.agent_state = event.state
            return {Aspect.STATUS}
        if isinstance(event, TerminalEvent):
            self.terminals.setdefault(event.terminal_id, TerminalView()).update(event)
            return self._cards_showing(event.terminal_id)
        if isinstance(event, Notice):
            return self.add_notice(event)
        if isinstance(event, ToolCallEvent):
            return self._tool_call(event)
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
        if isinstance(event, SuggestionsEvent):
            return set()  # validated against the negotiated capabilities first: see set_suggestions
        raise TypeError(f"unhandled event {type(event).__name__}")

    def add_user_message(self, parts: list[ContentPart], *, auto_sent: bool = False) -> set[str]:
        """Record a prompt the user sent (agents do not echo it back during a live turn).

        Sending stops offering the current suggestions: they were predicted for the conversation
        before this prompt.
        """
        first = not any(isinstance(i, MessageItem) and i.role == "user" for i in self.items)
        item = MessageItem(role="user", parts=list(parts), auto_sent=auto_sent, pending=self.keyed_messages)
        self.items.append(item)
        self._open_message = None
        # An untitled session is named after its first prompt until the agent names it.
        named = {Aspect.DETAILS} if first and not self.title else set()
        return {item.id} | named | self.set_suggestions(())

    def cancel_unfinished_tool_calls(self) -> set[str]:
        """Cancel was asked for (ACP v2): tool calls still pending or in progress show as cancelled at
        once; an update from the agent afterwards still says what really became of them."""
        changed = set()
        for item in self._tool_calls.values():
            if item.status in (None, "pending", "in_progress"):
                item.status = "cancelled"
                changed.add(item.id)
        return changed

    def close_open_message(self) -> set[str]:
        """The next chunk starts a new message (a replay ended, or another speaker took over)."""
        self._open_message = None
        return set()

    def add_item(self, item: PermissionItem | FileWriteItem) -> set[str]:
        if isinstance(item, FileWriteItem):
            item.diff_shown = self._diff_shown(item)
        self.items.append(item)
        self._open_message = None
        return {item.id}

    def set_sidebar(self, sidebar: Sidebar) -> set[str]:
        if sidebar == self.sidebar:
            return set()
        self.sidebar = sidebar
        return {Aspect.SESSIONS}

    def set_suggestions(self, suggestions: tuple[Suggestion, ...]) -> set[str]:
        """Replace the list on offer (an empty tuple offers nothing)."""
        if not suggestions and not self.suggestions:
            return set()
        self.suggestions = suggestions
        self.suggestions_generation += 1
        return {Aspect.SUGGESTIONS}

    def add_notice(self, notice: Notice) -> set[str]:
        """Show a notice; one of the same kind as the last notice since the user's last prompt joins it.

        An agent that logs to stdout makes one notice per line; collapsing keeps the transcript readable,
        and the message being streamed stays open, so its text is not cut into pieces either.
        """
        repeated = self._last_notice()
        if repeated is not None and repeated.same_kind(notice):
            repeated.add(notice)
            return {repeated.id}
        item = NoticeItem(notice=notice)
        self.items.append(item)
        self._open_message = None
        return {item.id}

    def _last_notice(self) -> NoticeItem | None:
        """The most recent notice, unless the user has sent a prompt since."""
        for item in reversed(self.items):
            if isinstance(item, NoticeItem):
                return item
            if isinstance(item, MessageItem) and item.role == "user":
                return None
        return None

    def set_agent_status(self, status: AgentStatus) -> set[str]:
        self.agent_status = status
        if status is AgentStatus.EXITED:
            self.turn = TurnState.IDLE
        return {Aspect.STATUS}

    def set_turn(self, turn: TurnState) -> set[str]:
        self.turn = turn
        if turn is TurnState.IDLE:
            self._open_message = None
        return {Aspect.STATUS}

    def set_terminal(self, terminal_id: str, output: TerminalOutput) -> set[str]:
        """A client terminal's output or exit changed: the cards that embed it change."""
        self.terminals[terminal_id] = TerminalView(output.output, output.truncated, output.exit)
        return self._cards_showing(terminal_id)

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

    # --- internals --------------------------------------------------------------------------------------

    def _add_chunk(self, chunk: MessageChunk) -> set[str]:
        if isinstance(chunk.content, TextPart) and not chunk.content.text:
            return set()  # an empty chunk (qwen-code sends one with its usage data) adds nothing
        if self.keyed_messages and chunk.message_id is not None:
            keyed = self._keyed(chunk.role, chunk.message_id)
            keyed.add(chunk.content)
            return {keyed.id}
        item = self._open_message
        if item is None or item.role != chunk.role or _different_message(item, chunk):
            item = MessageItem(role=chunk.role, message_id=chunk.message_id)
            self.items.append(item)
            self._open_message = item
        item.add(chunk.content)
        return {item.id}

    def _upsert_message(self, event: MessageUpsert) -> set[str]:
        """ACP v2: content sent replaces the message's (null or [] clears it); left out, it stays."""
        item = self._keyed(event.role, event.message_id)
        if "parts" in event.model_fields_set:
            item.parts = list(event.parts or ())
        return {item.id}

    def _keyed(self, role: str, message_id: str) -> MessageItem:
        """The message with this id, placed at first sight. The first new user message takes the place
        of the oldest prompt still pending: it is the agent's copy of it (its content replaces ours)."""
        key = (role, message_id)
        item = self._messages.get(key)
        if item is not None:
            return item
        pending = self._oldest_pending() if role == "user" else None
        if pending is not None:
            pending.pending, pending.message_id, pending.parts = False, message_id, []
            item = pending
        else:
            item = MessageItem(role=role, message_id=message_id)  # type: ignore[arg-type]
            self.items.append(item)
        self._messages[key] = item
        self._open_message = None
        return item

    def settle_pending(self) -> set[str]:
        """No prompt runs any more: one still pending was never taken in (refused, or the agent went
        away), so it stops saying it waits."""
        settled = [i for i in self.items if isinstance(i, MessageItem) and i.pending]
        for item in settled:
            item.pending = False
        return {item.id for item in settled}

    def _oldest_pending(self) -> MessageItem | None:
        return next((i for i in self.items if isinstance(i, MessageItem) and i.pending), None)

    @property
    def pending_prompts(self) -> int:
        """ACP v2: prompts sent that the agent has not inserted into its history yet."""
        return sum(1 for i in self.items if isinstance(i, MessageItem) and i.pending)

    def _tool_call(self, event: ToolCallEvent) -> set[str]:
        item = self._tool_calls.get(event.tool_call_id)
        if item is None:
            item = ToolCallItem(tool_call_id=event.tool_call_id)
            self._tool_calls[event.tool_call_id] = item
            self.items.append(item)
        item.merge(event)
        if event.terminal_stream is not None:
            self._stream_terminal(item, event.terminal_stream)
        # New content replaces the old, but output streamed in `_meta` belongs to the card for good.
        for terminal_id in item.streamed_terminals - item.terminal_ids:
            item.content = (*item.content, ToolCallContent(kind="terminal", terminal_id=terminal_id))
        self._open_message = None
        return {item.id}

    def _stream_terminal(self, item: ToolCallItem, chunk: TerminalStream) -> None:
        """Output an agent streams in `_meta`: kept like a terminal's, shown in the card it names."""
        terminal_id = chunk.terminal_id or item.tool_call_id
        self.terminals.setdefault(terminal_id, TerminalView()).stream(chunk)
        item.streamed_terminals.add(terminal_id)

    def _cards_showing(self, terminal_id: str) -> set[str]:
        return {item.id for item in self._tool_calls.values() if terminal_id in item.terminal_ids}

    def _diff_shown(self, write: FileWriteItem) -> bool:
        for tool in self._tool_calls.values():
            for entry in tool.content:
                if (
                    getattr(entry, "kind", None) != "diff"
                    or getattr(entry, "new_text", None) != write.new_text
                ):
                    continue
                path = str(getattr(entry, "path", "") or "")
                if path and (path == write.path or write.path.endswith("/" + path.lstrip("/"))):
                    return True
        return False

    def _session_info(self, event: SessionInfoEvent) -> set[str]:
        if "title" in event.model_fields_set:  # sent as null: the agent cleared it
            self.title = event.title
        return {Aspect.DETAILS}


def _different_message(item: MessageItem, chunk: MessageChunk) -> bool:
    return (
        chunk.message_id is not None and item.message_id is not None and chunk.message_id != item.message_id
    )
