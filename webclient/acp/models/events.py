"""The events one `session/update` becomes, in either ACP version, and the notices about the stream."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from webclient.acp.controls import ConfigOption
from webclient.acp.models.base import Model
from webclient.acp.models.content import ContentPart
from webclient.acp.models.suggestion import Skipped, Suggestion


class MessageChunk(Model):
    """A piece of a user message, an agent message or an agent thought."""

    role: Literal["user", "agent", "thought"]
    content: ContentPart
    message_id: str | None = None


class ToolCallLocation(Model):
    path: str
    line: int | None = None


class DiffChange(Model):
    """One file a v2 diff touches: `operation` is add, delete, modify, move, copy (or a newer one)."""

    operation: str
    path: str
    old_path: str | None = None


class ToolCallContent(Model):
    """One entry of a tool call's content: a content block, a diff, or a terminal reference.

    A v1 diff has `path`, `old_text` and `new_text`; a v2 diff lists its `changes` and may carry a git
    `patch` to show (none for binary files, directories or symlinks)."""

    kind: Literal["content", "diff", "terminal"]
    content: ContentPart | None = None
    path: str | None = None
    old_text: str | None = None
    new_text: str | None = None
    terminal_id: str | None = None
    changes: tuple[DiffChange, ...] = ()
    patch: str | None = None


class TerminalStream(Model):
    """Command output an agent streams in a tool call's `_meta` instead of a client terminal (codex-acp's
    `terminal_output_delta` and `terminal_exit` extension). `terminal_id` None: the tool call's own id."""

    terminal_id: str | None = None
    data: str = ""
    exit_code: int | None = None
    exited: bool = False


class ToolCallEvent(Model):
    """`tool_call` (is_update False) or `tool_call_update` (True): fields left None were not sent.

    ACP v2 patches: `cleared` names the fields sent as null (they go back to nothing), `appended` is
    content to add after what the card shows (`tool_call_content_chunk`)."""

    tool_call_id: str
    is_update: bool
    title: str | None = None
    kind: str | None = None
    status: str | None = None
    content: tuple[ToolCallContent, ...] | None = None
    locations: tuple[ToolCallLocation, ...] | None = None
    raw_input: Any = None
    raw_output: Any = None
    terminal_stream: TerminalStream | None = None
    cleared: frozenset[str] = frozenset()
    appended: tuple[ToolCallContent, ...] = ()
    cancellable: bool | None = None  # ACP v2 `capabilities.cancel`: `tool_call/cancel` may stop it


class TerminalExit(Model):
    """How a terminal's command ended: an exit code, or the name of the signal that ended it."""

    exit_code: int | None = None
    signal: str | None = None


class MessageUpsert(Model):
    """ACP v2's whole-message update (`user_message`, `agent_message`, `agent_thought`).

    `parts` replaces the message's content when it was sent (in `model_fields_set`); sent as null or
    empty, it clears it; left out, the content stays and the update only places the message."""

    role: Literal["user", "agent", "thought"]
    message_id: str
    parts: tuple[ContentPart, ...] | None = None


class BackgroundWork(Model):
    """ACP v2: a terminal or a tool call the agent keeps running outside the foreground turn (`session/cancel`
    leaves it running; `terminal/cancel` or `tool_call/cancel` stops it). `kind` may be a newer one."""

    kind: str
    id: str


class TurnError(Model):
    """Why an ACP v2 turn ended with the `error` stop reason: the agent's error, as JSON-RPC shapes one."""

    code: int | None = None
    message: str
    data: Any = None


class StateEvent(Model):
    """ACP v2's `state_update`: `running`, `requires_action`, `idle` (with why work stopped) or a state
    this client does not know, kept as the agent sent it. `background` (None: not sent) replaces the
    list of background work; `error` comes with the `error` stop reason."""

    state: str
    stop_reason: str | None = None
    background: tuple[BackgroundWork, ...] | None = None
    error: TurnError | None = None


class CompactionEvent(Model):
    """ACP v2's context compaction (`compaction_update`, `compaction_summary_chunk`). `status` None: a
    summary chunk (`appended`); `summary` set replaces the summary so far; `error` when it failed."""

    compaction_id: str
    status: str | None = None
    summary: str | None = None
    appended: str = ""
    error: str | None = None


class TurnAnswered(Model):
    """ACP v1's answer to `session/prompt`, in wire order with the updates around it: the agent's
    message is complete, so a chunk after it starts a new message."""

    stop_reason: str | None = None


class TerminalEvent(Model):
    """ACP v2's display-only terminal (`terminal_update`, `terminal_output_chunk`), decoded.

    `output` replaces everything shown so far when set; `appended` adds to it. `exit` set: it exited."""

    terminal_id: str
    command: str | None = None
    output: str | None = None
    appended: str = ""
    exit: TerminalExit | None = None
    cancellable: bool | None = None  # `capabilities.cancel`: `terminal/cancel` may stop it


class PlanEntry(Model):
    content: str
    priority: str
    status: str


class PlanEvent(Model):
    """A plan's entries, replacing that plan's earlier ones (v1 has one plan: `plan_id` None)."""

    entries: tuple[PlanEntry, ...]
    plan_id: str | None = None


class Command(Model):
    name: str
    description: str
    input_hint: str | None = None


class CommandsEvent(Model):
    commands: tuple[Command, ...]


class ModeEvent(Model):
    current_mode_id: str


class ConfigOptionsEvent(Model):
    options: tuple[ConfigOption, ...]


class SessionInfoEvent(Model):
    title: str | None = None
    updated_at: str | None = None


class UsageEvent(Model):
    used: int
    size: int
    cost_amount: float | None = None
    cost_currency: str | None = None


@dataclass(frozen=True)
class SuggestionsEvent:
    """Prompt suggestions from the agent, parsed and checked against what was negotiated at `initialize`
    (`webclient/acp/suggestions.py`) before they leave the protocol layer.

    `suggestions` are the usable ones, most likely first; `skipped` those left out, with why. `malformed`
    set: the update is unusable as a whole (why), so the list on offer stays. `legacy`: they came by the
    pre-RFD channel, `session_info_update._meta.promptSuggestions`, which the RFD's update supersedes.
    """

    suggestions: tuple[Suggestion, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    malformed: str | None = None
    legacy: bool = False

    @property
    def sent(self) -> int:
        """How many suggestions the agent sent, usable or not."""
        return len(self.suggestions) + len(self.skipped)


class NoticeLevel(StrEnum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


class Notice(Model):
    """Something the user should see that is not part of the conversation: a protocol or agent problem,
    or (`from_agent`) an ACP v2 `notice` the agent sent: its title as `text`, with its `description`."""

    level: NoticeLevel
    text: str
    detail: str | None = None
    description: str | None = None
    from_agent: bool = False


SessionEvent = (
    MessageChunk
    | MessageUpsert
    | StateEvent
    | TurnAnswered
    | CompactionEvent
    | TerminalEvent
    | ToolCallEvent
    | PlanEvent
    | CommandsEvent
    | ModeEvent
    | ConfigOptionsEvent
    | SessionInfoEvent
    | UsageEvent
    | SuggestionsEvent
    | Notice
)


@dataclass(frozen=True)
class Translation:
    """The outcome of one `session/update`: the session it names (None if unreadable) and its events."""

    session_id: str | None
    events: tuple[SessionEvent, ...]
