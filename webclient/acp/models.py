"""Our own small models of what an agent tells us.

The agent layer translates wire messages into these at exactly one place (`translate.py`); everything
above it (session state, rendering, the web layer) sees only these, never JSON-RPC.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from webclient.acp.controls import ConfigOption, Mode


class Model(BaseModel):
    model_config = ConfigDict(frozen=True)


# --- content -----------------------------------------------------------------------------------------


class TextPart(Model):
    kind: Literal["text"] = "text"
    text: str


class ImagePart(Model):
    kind: Literal["image"] = "image"
    mime_type: str
    data: str
    uri: str | None = None


class AudioPart(Model):
    kind: Literal["audio"] = "audio"
    mime_type: str
    data: str


class ResourceLinkPart(Model):
    kind: Literal["resource_link"] = "resource_link"
    name: str
    uri: str
    title: str | None = None
    mime_type: str | None = None
    size: int | None = None


class ResourcePart(Model):
    """An embedded resource: its contents travel inside the message."""

    kind: Literal["resource"] = "resource"
    uri: str
    mime_type: str | None = None
    text: str | None = None
    blob: str | None = None


ContentPart = TextPart | ImagePart | AudioPart | ResourceLinkPart | ResourcePart


@dataclass(frozen=True)
class PromptBlock:
    """One block of a prompt we send: our part, and, for a block an agent wrote (a suggestion's), that
    block exactly as it came (`_meta` and annotations included), since the RFD wants it sent back
    deep-equal. Only the agent layer reads `original`; everyone else sees `part`."""

    part: ContentPart
    original: Mapping[str, Any] | None = None


# Image types a browser renders without running code (no SVG: it can carry script).
DISPLAYABLE_IMAGE_TYPES = frozenset(
    {"image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp"}
)


# --- session updates -----------------------------------------------------------------------------------


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


class StateEvent(Model):
    """ACP v2's `state_update`: `running`, `requires_action`, `idle` (with why work stopped) or a state
    this client does not know, kept as the agent sent it."""

    state: str
    stop_reason: str | None = None


class TerminalEvent(Model):
    """ACP v2's display-only terminal (`terminal_update`, `terminal_output_chunk`), decoded.

    `output` replaces everything shown so far when set; `appended` adds to it. `exit` set: it exited."""

    terminal_id: str
    command: str | None = None
    output: str | None = None
    appended: str = ""
    exit: TerminalExit | None = None


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
    meta: dict[str, Any] | None = None


class UsageEvent(Model):
    used: int
    size: int
    cost_amount: float | None = None
    cost_currency: str | None = None


class SuggestionsEvent(Model):
    """A raw `prompt_suggestions_update` body, validated later against the negotiated capabilities."""

    update: dict[str, Any]


class NoticeLevel(StrEnum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


class Notice(Model):
    """Something the user should see that is not part of the conversation: a protocol or agent problem."""

    level: NoticeLevel
    text: str
    detail: str | None = None


SessionEvent = (
    MessageChunk
    | MessageUpsert
    | StateEvent
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


class AgentStatus(StrEnum):
    """The lifecycle of the agent process, as the page shows it."""

    STARTING = "starting"
    AUTH_REQUIRED = "auth-required"
    READY = "ready"
    WORKING = "working"
    EXITED = "exited"


class AuthVar(Model):
    """A variable an `env_var` sign-in method asks for."""

    name: str
    label: str | None = None
    secret: bool = True
    optional: bool = False


class AuthMethod(Model):
    """One way to sign in: `agent` (we call `authenticate`), `env_var` (we restart the agent with the
    variables set) or `terminal` (the user runs the agent's command with `args` and `env` themselves)."""

    id: str
    name: str
    description: str | None = None
    kind: Literal["agent", "env_var", "terminal"] = "agent"
    vars: tuple[AuthVar, ...] = ()
    link: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()


# --- what the agent said about itself, and the answers to our session requests --------------------------


class PromptCapabilities(Model):
    """Which content block types beyond text and resource links the agent accepts in a prompt."""

    image: bool = False
    audio: bool = False
    embedded_context: bool = False

    def allows(self, block_kind: str) -> bool:
        """Whether a block of this kind (a `ContentPart.kind`) may go to the agent in a prompt."""
        if block_kind in ("text", "resource_link"):
            return True
        flag = {"image": self.image, "audio": self.audio, "resource": self.embedded_context}
        return flag.get(block_kind, False)


class AgentCapabilities(Model):
    """The agent's `agentCapabilities`, reduced to what this client acts on."""

    load_session: bool = False
    list_sessions: bool = False
    resume_session: bool = False
    close_session: bool = False
    mcp_http: bool = False  # mcpCapabilities.http: MCP servers reached over HTTP (stdio ones always work)
    delete_session: bool = False  # v2 `session.delete`: a stored session can be deleted
    prompt: PromptCapabilities = PromptCapabilities()


class AgentInfo(Model):
    """What the agent said about itself in its `initialize` response."""

    protocol_version: int
    name: str
    title: str | None = None
    version: str | None = None
    capabilities: AgentCapabilities = AgentCapabilities()
    auth_methods: tuple[AuthMethod, ...] = ()

    @property
    def display_name(self) -> str:
        return self.title or self.name


class OpenedSession(Model):
    """The answer to `session/new`, `session/load` or `session/resume`."""

    session_id: str
    modes: tuple[Mode, ...] = ()
    current_mode_id: str | None = None
    config_options: tuple[ConfigOption, ...] = ()


class StoredSessionInfo(Model):
    """One entry of the agent's `session/list`: a session it keeps that can be loaded or resumed."""

    session_id: str
    title: str | None = None
    updated_at: str | None = None


class PermissionOption(Model):
    id: str
    name: str
    kind: str | None = None

    @property
    def rejects(self) -> bool:
        return (self.kind or "").startswith("reject")


class PermissionRequest(Model):
    """The agent asks before it acts (`session/request_permission`): the tool call and its options.

    ACP v2 asks with its own `question` (which never renames the tool call) and `description`; its
    subject may be a command rather than a tool call: then `tool_call` only describes it
    (`updates_card` False: no card is opened or changed for it)."""

    session_id: str
    tool_call: ToolCallEvent
    options: tuple[PermissionOption, ...]
    question: str | None = None
    description: str | None = None
    updates_card: bool = True

    @property
    def title(self) -> str:
        return self.question or self.tool_call.title or self.tool_call.tool_call_id or "a tool call"

    def option(self, option_id: str) -> PermissionOption | None:
        return next((o for o in self.options if o.id == option_id), None)


class TerminalRequest(Model):
    """`terminal/create`: run `command` with `args` (none: one shell command line) in `cwd`."""

    session_id: str
    command: str
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    output_byte_limit: int | None = None


class TerminalOutput(Model):
    """`terminal/output`: what was captured so far (the tail, when `truncated`), and the exit if any."""

    output: str
    truncated: bool
    exit: TerminalExit | None = None


class PermissionOutcome(Model):
    """The user's answer: the chosen option's id, or None for "cancelled" (nothing approved)."""

    option_id: str | None = None

    @classmethod
    def cancelled(cls) -> PermissionOutcome:
        return cls(option_id=None)
