"""The one boundary where ACP wire messages become our own models.

`translate_update` takes the raw params of a `session/update` notification, before the SDK has seen
them, validates known variants with the SDK's schema models and maps them to `webclient.acp.models`. An
unknown or malformed update becomes a `Notice`; nothing here raises on agent input.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from acp import schema
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from webclient.acp.controls import config_option_from_sdk
from webclient.acp.models import (
    AudioPart,
    Command,
    CommandsEvent,
    ConfigOptionsEvent,
    ContentPart,
    ImagePart,
    MessageChunk,
    ModeEvent,
    Notice,
    NoticeLevel,
    PlanEntry,
    PlanEvent,
    PromptBlock,
    ResourceLinkPart,
    ResourcePart,
    SessionEvent,
    SessionInfoEvent,
    SuggestionsEvent,
    TerminalStream,
    TextPart,
    ToolCallContent,
    ToolCallEvent,
    ToolCallLocation,
    UsageEvent,
)

SUGGESTIONS_VARIANT = "prompt_suggestions_update"
# Variants the SDK knows from the unstable protocol; they are not ACP v1 and we do not show them.
UNSTABLE_VARIANTS = frozenset({"plan_update", "plan_removed"})


@dataclass(frozen=True)
class Translation:
    """The outcome of one `session/update`: the session it names (None if unreadable) and its events."""

    session_id: str | None
    events: tuple[SessionEvent, ...]


def read_envelope(params: Any) -> tuple[str, dict[str, Any]] | Translation:
    """The session id and update of a `session/update` (the same in v1 and v2), or the notice that says
    why they cannot be read."""
    if not isinstance(params, dict):
        return malformed(None, "session/update params are not an object", params)
    session_id = params.get("sessionId")
    if not isinstance(session_id, str):
        return malformed(None, "session/update without a string sessionId", params)
    update = params.get("update")
    if not isinstance(update, dict) or not isinstance(update.get("sessionUpdate"), str):
        return malformed(session_id, "session/update without an update.sessionUpdate", params)
    return session_id, update


# Translates one variant's update body; the session id is there for translators that keep state per
# session (ACP v2's display terminals).
VariantTranslator = Callable[[str, dict[str, Any]], Sequence[SessionEvent]]


def translate_update(params: Any) -> Translation:
    """Turn the params of one ACP v1 `session/update` into our events; never raises on bad input."""
    return translate_with(params, _V1_VARIANTS.get)


def translate_with(params: Any, variant: Callable[[str], VariantTranslator | None]) -> Translation:
    """One `session/update` of either version: its envelope read, suggestions passed on as they are
    (validated later against what was negotiated), the rest by the `variant` translator; an unknown or
    malformed update becomes a notice."""
    envelope = read_envelope(params)
    if isinstance(envelope, Translation):
        return envelope
    session_id, update = envelope
    kind = update["sessionUpdate"]
    if kind == SUGGESTIONS_VARIANT:
        return Translation(session_id, (SuggestionsEvent(update=update),))
    translate = variant(kind)
    if translate is None:
        return Translation(session_id, (unknown_variant_notice(kind),))
    try:
        events = translate(session_id, update)
    except (ValidationError, ValueError, TypeError, KeyError) as exc:
        return malformed(session_id, f"malformed {kind} update was ignored", _short_error(exc))
    return Translation(session_id, tuple(events))


def translate_content(block: Any) -> ContentPart:
    """Map one ContentBlock (raw dict or SDK model) to our content part; raises ValueError if invalid."""
    if isinstance(block, BaseModel):
        block = block.model_dump(mode="json", by_alias=True, exclude_none=True)
    try:
        model = _CONTENT_ADAPTER.validate_python(block)
    except ValidationError as exc:
        raise ValueError(_short_error(exc)) from exc
    return _content_from_model(model)


def content_to_wire(part: ContentPart) -> dict[str, Any]:
    """The ContentBlock dict for one of our parts, as `session/prompt` takes it."""
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, ImagePart):
        return _without_none(
            {"type": "image", "mimeType": part.mime_type, "data": part.data, "uri": part.uri}
        )
    if isinstance(part, AudioPart):
        return {"type": "audio", "mimeType": part.mime_type, "data": part.data}
    if isinstance(part, ResourceLinkPart):
        return _without_none(
            {
                "type": "resource_link",
                "name": part.name,
                "uri": part.uri,
                "title": part.title,
                "mimeType": part.mime_type,
                "size": part.size,
            }
        )
    resource = _without_none(
        {"uri": part.uri, "mimeType": part.mime_type, "text": part.text, "blob": part.blob}
    )
    return {"type": "resource", "resource": resource}


def prompt_to_wire(blocks: Sequence[PromptBlock]) -> list[dict[str, Any]]:
    """The `prompt` of `session/prompt` (v1 and v2 alike): each block as the agent wrote it when it
    did, else the ContentBlock for its part."""
    return [dict(b.original) if b.original is not None else content_to_wire(b.part) for b in blocks]


# --- variants -------------------------------------------------------------------------------------------


def _message(role: str, model_type: type[BaseModel]) -> Callable[[dict[str, Any]], Sequence[SessionEvent]]:
    def translate(update: dict[str, Any]) -> Sequence[SessionEvent]:
        plain = _plain_text_chunk(role, update)
        if plain is not None:
            return [plain]
        chunk = model_type.model_validate(update)
        content = _content_from_model(chunk.content)  # type: ignore[attr-defined]
        message_id = getattr(chunk, "message_id", None)
        return [MessageChunk(role=role, content=content, message_id=message_id)]  # type: ignore[arg-type]

    return translate


_PLAIN_CHUNK_KEYS = frozenset({"sessionUpdate", "content", "messageId"})
_PLAIN_TEXT_KEYS = frozenset({"type", "text"})


def _plain_text_chunk(role: str, update: dict[str, Any]) -> MessageChunk | None:
    """The common chunk, `{"content": {"type": "text", "text": ...}}` and nothing else, checked by hand.

    This is the stream's hot path: the SDK's model validation costs more than everything else we do
    with a chunk. Anything with more fields (annotations, `_meta`) or other types takes the full path.
    """
    content = update.get("content")
    if (
        not isinstance(content, dict)
        or content.keys() != _PLAIN_TEXT_KEYS
        or content["type"] != "text"
        or not isinstance(content["text"], str)
        or not update.keys() <= _PLAIN_CHUNK_KEYS
    ):
        return None
    message_id = update.get("messageId")
    if message_id is not None and not isinstance(message_id, str):
        return None
    # Every field is checked above, so the models need no second validation.
    part = TextPart.model_construct(text=content["text"])
    return MessageChunk.model_construct(role=role, content=part, message_id=message_id)  # type: ignore[arg-type]


def _tool_call(update: dict[str, Any]) -> Sequence[SessionEvent]:
    is_update = update["sessionUpdate"] == "tool_call_update"
    model: schema.ToolCallStart | schema.ToolCallProgress
    if is_update:
        model = schema.ToolCallProgress.model_validate(update)
    else:
        model = schema.ToolCallStart.model_validate(update)
    return [tool_call_event(model, is_update=is_update)]


def tool_call_event(model: Any, *, is_update: bool) -> ToolCallEvent:
    """One SDK tool-call model (a `tool_call`, an update, or a permission request's) as our event."""
    content = None
    if model.content is not None:
        content = tuple(_tool_content(item) for item in model.content)
    locations = None
    if model.locations is not None:
        locations = tuple(ToolCallLocation(path=loc.path, line=loc.line) for loc in model.locations)
    return ToolCallEvent(
        tool_call_id=model.tool_call_id,
        is_update=is_update,
        title=model.title,
        kind=model.kind,
        status=model.status,
        content=content,
        locations=locations,
        raw_input=model.raw_input,
        raw_output=model.raw_output,
        terminal_stream=terminal_stream(getattr(model, "field_meta", None)),
    )


def terminal_stream(meta: Any) -> TerminalStream | None:
    """codex-acp's command output in a tool call's `_meta`: `terminal_output_delta` ({terminal_id, data})
    and `terminal_exit` ({terminal_id, exit_code}). None when the tool call carries neither."""
    if not isinstance(meta, dict):
        return None
    delta, done = meta.get("terminal_output_delta"), meta.get("terminal_exit")
    delta = delta if isinstance(delta, dict) and isinstance(delta.get("data"), str) else None
    done = done if isinstance(done, dict) else None
    if delta is None and done is None:
        return None
    named = (delta or done or {}).get("terminal_id")
    code = done.get("exit_code") if done else None
    return TerminalStream(
        terminal_id=named if isinstance(named, str) else None,
        data=delta["data"] if delta else "",
        exit_code=code if isinstance(code, int) and not isinstance(code, bool) else None,
        exited=done is not None,
    )


def _tool_content(item: Any) -> ToolCallContent:
    if isinstance(item, schema.FileEditToolCallContent):
        return ToolCallContent(kind="diff", path=item.path, old_text=item.old_text, new_text=item.new_text)
    if isinstance(item, schema.TerminalToolCallContent):
        return ToolCallContent(kind="terminal", terminal_id=item.terminal_id)
    return ToolCallContent(kind="content", content=_content_from_model(item.content))


def _plan(update: dict[str, Any]) -> Sequence[SessionEvent]:
    model = schema.AgentPlanUpdate.model_validate(update)
    entries = tuple(PlanEntry(content=e.content, priority=e.priority, status=e.status) for e in model.entries)
    return [PlanEvent(entries=entries)]


def _commands(update: dict[str, Any]) -> Sequence[SessionEvent]:
    model = schema.AvailableCommandsUpdate.model_validate(update)
    commands = tuple(
        Command(
            name=c.name,
            description=c.description,
            input_hint=getattr(getattr(c.input, "root", c.input), "hint", None) if c.input else None,
        )
        for c in model.available_commands
    )
    return [CommandsEvent(commands=commands)]


def _mode(update: dict[str, Any]) -> Sequence[SessionEvent]:
    model = schema.CurrentModeUpdate.model_validate(update)
    return [ModeEvent(current_mode_id=model.current_mode_id)]


def _config_options(update: dict[str, Any]) -> Sequence[SessionEvent]:
    model = schema.ConfigOptionUpdate.model_validate(update)
    return [ConfigOptionsEvent(options=tuple(config_option_from_sdk(o) for o in model.config_options))]


def _session_info(update: dict[str, Any]) -> Sequence[SessionEvent]:
    model = schema.SessionInfoUpdate.model_validate(update)
    meta = update.get("_meta")
    # Partial update: a field left out is unchanged, a null clears it. Pass on only the fields sent,
    # so the event's `model_fields_set` keeps that difference.
    sent = {name: getattr(model, name) for name in ("title", "updated_at") if name in model.model_fields_set}
    return [SessionInfoEvent(**sent, meta=meta if isinstance(meta, dict) else None)]


def _usage(update: dict[str, Any]) -> Sequence[SessionEvent]:
    model = schema.UsageUpdate.model_validate(update)
    cost = model.cost
    return [
        UsageEvent(
            used=model.used,
            size=model.size,
            cost_amount=cost.amount if cost else None,
            cost_currency=cost.currency if cost else None,
        )
    ]


_TRANSLATORS: dict[str, Callable[[dict[str, Any]], Sequence[SessionEvent]]] = {
    "user_message_chunk": _message("user", schema.UserMessageChunk),
    "agent_message_chunk": _message("agent", schema.AgentMessageChunk),
    "agent_thought_chunk": _message("thought", schema.AgentThoughtChunk),
    "tool_call": _tool_call,
    "tool_call_update": _tool_call,
    "plan": _plan,
    "available_commands_update": _commands,
    "current_mode_update": _mode,
    "config_option_update": _config_options,
    "session_info_update": _session_info,
    "usage_update": _usage,
}


def _any_session(translate: Callable[[dict[str, Any]], Sequence[SessionEvent]]) -> VariantTranslator:
    return lambda _session_id, update: translate(update)


_V1_VARIANTS: dict[str, VariantTranslator] = {kind: _any_session(f) for kind, f in _TRANSLATORS.items()}


# --- content blocks -------------------------------------------------------------------------------------

_CONTENT_BLOCK = Annotated[
    schema.TextContentBlock
    | schema.ImageContentBlock
    | schema.AudioContentBlock
    | schema.ResourceContentBlock
    | schema.EmbeddedResourceContentBlock,
    Field(discriminator="type"),
]
_CONTENT_ADAPTER: TypeAdapter[Any] = TypeAdapter(_CONTENT_BLOCK)


def _content_from_model(model: Any) -> ContentPart:
    if isinstance(model, schema.TextContentBlock):
        return TextPart(text=model.text)
    if isinstance(model, schema.ImageContentBlock):
        return ImagePart(mime_type=model.mime_type, data=model.data, uri=model.uri)
    if isinstance(model, schema.AudioContentBlock):
        return AudioPart(mime_type=model.mime_type, data=model.data)
    if isinstance(model, schema.ResourceContentBlock):
        return ResourceLinkPart(
            name=model.name, uri=model.uri, title=model.title, mime_type=model.mime_type, size=model.size
        )
    if isinstance(model, schema.EmbeddedResourceContentBlock):
        res = model.resource
        return ResourcePart(
            uri=res.uri,
            mime_type=res.mime_type,
            text=getattr(res, "text", None),
            blob=getattr(res, "blob", None),
        )
    raise ValueError(f"unsupported content block {type(model).__name__}")


# --- notices --------------------------------------------------------------------------------------------


def unknown_variant_notice(variant: str) -> Notice:
    if variant in UNSTABLE_VARIANTS:
        text = f"ignored the unstable update {variant!r}, which this client does not show"
    else:
        text = f"ignored an update of unknown type {variant!r}"
    return Notice(level=NoticeLevel.INFO, text=text)


def malformed(session_id: str | None, text: str, detail: Any) -> Translation:
    notice = Notice(level=NoticeLevel.WARNING, text=text, detail=_clip(repr(detail)))
    return Translation(session_id, (notice,))


def _short_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        parts = [f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()[:5]]
        return "; ".join(parts)
    return str(exc)


def _clip(text: str, limit: int = 500) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _without_none(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}
