"""ACP v1 `session/update` variants into our models, validated with the SDK's schema models.

`translate_update` takes the raw params of a `session/update` notification, before the SDK has seen
them; the envelope, prompt suggestions and notices are shared with v2 (`webclient/acp/session_update.py`).
An unknown or malformed update becomes a `Notice`; nothing here raises on agent input.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from acp import schema
from pydantic import BaseModel

from webclient.acp.content_blocks import content_from_model
from webclient.acp.controls import config_option_from_sdk
from webclient.acp.models import (
    Command,
    CommandsEvent,
    ConfigOptionsEvent,
    MessageChunk,
    ModeEvent,
    PlanEntry,
    PlanEvent,
    SessionEvent,
    SessionInfoEvent,
    TerminalStream,
    TextPart,
    ToolCallContent,
    ToolCallEvent,
    ToolCallLocation,
    Translation,
    UsageEvent,
)
from webclient.acp.session_update import VariantTranslator, translate_with
from webclient.acp.suggestions import BASELINE_TYPES


def translate_update(params: Any, suggestion_types: frozenset[str] = BASELINE_TYPES) -> Translation:
    """Turn the params of one ACP v1 `session/update` into our events; never raises on bad input.

    `suggestion_types`: the block types a prompt suggestion may use, as negotiated at `initialize`."""
    return translate_with(params, _V1_VARIANTS.get, suggestion_types)


def _message(role: str, model_type: type[BaseModel]) -> Callable[[dict[str, Any]], Sequence[SessionEvent]]:
    def translate(update: dict[str, Any]) -> Sequence[SessionEvent]:
        plain = _plain_text_chunk(role, update)
        if plain is not None:
            return [plain]
        chunk = model_type.model_validate(update)
        content = content_from_model(chunk.content)  # type: ignore[attr-defined]
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
    return MessageChunk.model_construct(role=role, content=part, message_id=message_id)


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
    return ToolCallContent(kind="content", content=content_from_model(item.content))


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
    # Partial update: a field left out is unchanged, a null clears it. Pass on only the fields sent,
    # so the event's `model_fields_set` keeps that difference.
    sent = {name: getattr(model, name) for name in ("title", "updated_at") if name in model.model_fields_set}
    return [SessionInfoEvent(**sent)]


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
