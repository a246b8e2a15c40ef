"""Our own small models of what an agent tells us.

The agent layer translates wire messages into these at exactly one place (`translate.py`); everything
above it (session state, rendering, the web layer) sees only these, never JSON-RPC.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from webclient.acp.controls import ConfigOption


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


class ToolCallContent(Model):
    """One entry of a tool call's content: a content block, a diff, or a terminal reference."""

    kind: Literal["content", "diff", "terminal"]
    content: ContentPart | None = None
    path: str | None = None
    old_text: str | None = None
    new_text: str | None = None
    terminal_id: str | None = None


class ToolCallEvent(Model):
    """`tool_call` (is_update False) or `tool_call_update` (True): fields left None were not sent."""

    tool_call_id: str
    is_update: bool
    title: str | None = None
    kind: str | None = None
    status: str | None = None
    content: tuple[ToolCallContent, ...] | None = None
    locations: tuple[ToolCallLocation, ...] | None = None
    raw_input: Any = None
    raw_output: Any = None


class PlanEntry(Model):
    content: str
    priority: str
    status: str


class PlanEvent(Model):
    entries: tuple[PlanEntry, ...]


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


class AuthMethod(Model):
    id: str
    name: str
    description: str | None = None
