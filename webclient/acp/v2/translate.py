"""ACP v2 `session/update` params into our models: the v2 twin of `webclient.acp.v1.translate`.

v2 updates are upserts: a field left out is unchanged, `null` clears it, a value replaces it, and
`*_chunk` updates append. Our events keep that difference (`model_fields_set`, `cleared`, `appended`),
and `SessionState` applies it. Unknown update kinds, states, content and plan types become notices or
are shown generically; nothing here raises on agent input.

A translator belongs to one connection: it keeps an incremental UTF-8 decoder per display terminal,
because terminal bytes arrive base64-encoded chunk by chunk and a character may straddle two chunks.
"""

from __future__ import annotations

import base64
import binascii
import codecs
from collections.abc import Callable, Sequence
from typing import Any

from webclient.acp.content_blocks import translate_content
from webclient.acp.controls import ConfigOption, config_options_from_wire
from webclient.acp.models import (
    Command,
    CommandsEvent,
    ConfigOptionsEvent,
    DiffChange,
    MessageChunk,
    MessageUpsert,
    Notice,
    NoticeLevel,
    PlanEntry,
    PlanEvent,
    SessionEvent,
    SessionInfoEvent,
    TerminalEvent,
    TerminalExit,
    TextPart,
    ToolCallContent,
    ToolCallEvent,
    ToolCallLocation,
    Translation,
    UsageEvent,
)
from webclient.acp.session_update import VariantTranslator, translate_with
from webclient.acp.suggestions import BASELINE_TYPES
from webclient.acp.v2 import activity
from webclient.acp.v2.activity import Malformed, string

# Message updates and chunks: the variant -> whose message it is.
ROLES = {
    "user_message": "user",
    "agent_message": "agent",
    "agent_thought": "thought",
    "user_message_chunk": "user",
    "agent_message_chunk": "agent",
    "agent_thought_chunk": "thought",
}
# Patchable tool-call fields: wire name -> our event's field.
_TOOL_FIELDS = {
    "title": "title",
    "kind": "kind",
    "status": "status",
    "content": "content",
    "locations": "locations",
    "rawInput": "raw_input",
    "rawOutput": "raw_output",
}


# Display terminals whose partial UTF-8 is kept between chunks; the oldest is forgotten past this.
MAX_DECODERS = 4096


class V2Translator:
    """Translates one v2 connection's updates, in wire order."""

    def __init__(self) -> None:
        # The block types a prompt suggestion may use: set once `initialize` has been answered.
        self.suggestion_types = BASELINE_TYPES
        self._decoders: dict[tuple[str, str], codecs.IncrementalDecoder] = {}
        self._variants: dict[str, VariantTranslator] = {
            **{kind: _chunk(kind) if kind.endswith("_chunk") else _upsert(kind) for kind in ROLES},
            "state_update": activity.state_update,
            "tool_call_update": _tool_call_update,
            "tool_call_content_chunk": _tool_content_chunk,
            "terminal_update": self._terminal_update,
            "terminal_output_chunk": self._terminal_chunk,
            "plan_update": _plan_update,
            "available_commands_update": _commands,
            "config_option_update": _config_options,
            "session_info_update": _session_info,
            "usage_update": _usage,
            "notice": activity.notice,
            "compaction_update": activity.compaction_update,
            "compaction_summary_chunk": activity.compaction_summary_chunk,
        }

    @property
    def kinds(self) -> frozenset[str]:
        """The update kinds this translator reads (prompt suggestions are read before it)."""
        return frozenset(self._variants)

    def translate(self, params: Any) -> Translation:
        return translate_with(params, self._variants.get, self.suggestion_types)

    # --- display terminals -----------------------------------------------------------------------------

    def _terminal_update(self, session_id: str, update: dict[str, Any]) -> Sequence[SessionEvent]:
        terminal_id = string(update, "terminalId")
        fields: dict[str, Any] = {"terminal_id": terminal_id}
        if isinstance(update.get("command"), str):
            fields["command"] = update["command"]
        if "capabilities" in update:
            fields["cancellable"] = _cancellable(update["capabilities"])
        if "output" in update:
            output = update["output"]
            data = output.get("data") if isinstance(output, dict) else None
            # A snapshot replaces every byte so far: decoding starts afresh too.
            decoder = self._fresh_decoder(session_id, terminal_id)
            fields["output"] = decoder.decode(_bytes(data)) if isinstance(data, str) else ""
        status = update.get("exitStatus")
        if isinstance(status, dict):
            code, signal = status.get("exitCode"), status.get("signal")
            fields["exit"] = TerminalExit(
                exit_code=code if isinstance(code, int) and not isinstance(code, bool) else None,
                signal=signal if isinstance(signal, str) else None,
            )
        return [TerminalEvent(**fields)]

    def _terminal_chunk(self, session_id: str, update: dict[str, Any]) -> Sequence[SessionEvent]:
        terminal_id = string(update, "terminalId")
        data = string(update, "data")  # required: a chunk without bytes is no chunk
        decoder = self._decoders.get((session_id, terminal_id)) or self._fresh_decoder(
            session_id, terminal_id
        )
        text = decoder.decode(_bytes(data))
        return [TerminalEvent(terminal_id=terminal_id, appended=text)]

    def _fresh_decoder(self, session_id: str, terminal_id: str) -> codecs.IncrementalDecoder:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._decoders[(session_id, terminal_id)] = decoder
        if len(self._decoders) > MAX_DECODERS:  # made-up ids must not grow this without end
            del self._decoders[next(iter(self._decoders))]
        return decoder


# --- messages ------------------------------------------------------------------------------------------


def _role(variant: str) -> str:
    return ROLES[variant]


def _chunk(variant: str) -> Callable[[str, dict[str, Any]], Sequence[SessionEvent]]:
    role = _role(variant)

    def translate(_: str, update: dict[str, Any]) -> Sequence[SessionEvent]:
        message_id = string(update, "messageId")  # required in v2
        content = translate_content(update.get("content"))
        return [MessageChunk(role=role, content=content, message_id=message_id)]  # type: ignore[arg-type]

    return translate


def _upsert(variant: str) -> Callable[[str, dict[str, Any]], Sequence[SessionEvent]]:
    role = _role(variant)

    def translate(_: str, update: dict[str, Any]) -> Sequence[SessionEvent]:
        fields: dict[str, Any] = {"role": role, "message_id": string(update, "messageId")}
        if "content" in update:
            raw = update["content"]
            if raw is not None and not isinstance(raw, list):
                raise Malformed("content is neither an array nor null")
            fields["parts"] = tuple(translate_content(block) for block in raw or ())
        return [MessageUpsert(**fields)]

    return translate


# --- tool calls ----------------------------------------------------------------------------------------


def _tool_call_update(_: str, update: dict[str, Any]) -> Sequence[SessionEvent]:
    return [tool_call_patch(update)]


def tool_call_patch(update: dict[str, Any]) -> ToolCallEvent:
    """A v2 `ToolCallUpdate` object (an update, or a permission subject's) as our patch event."""
    fields: dict[str, Any] = {"tool_call_id": string(update, "toolCallId"), "is_update": True}
    cleared: set[str] = set()
    for wire, name in _TOOL_FIELDS.items():
        if wire not in update:
            continue
        value = update[wire]
        if value is None or value == []:
            cleared.add(name)
            continue
        fields[name] = _TOOL_VALUES.get(wire, _as_is)(value)
    if "capabilities" in update:
        fields["cancellable"] = _cancellable(update["capabilities"])
    return ToolCallEvent(**fields, cleared=frozenset(cleared))


def _cancellable(capabilities: Any) -> bool:
    """`capabilities.cancel` present (an object): the agent takes `tool_call/cancel` / `terminal/cancel`."""
    return isinstance(capabilities, dict) and isinstance(capabilities.get("cancel"), dict)


def _tool_content_chunk(_: str, update: dict[str, Any]) -> Sequence[SessionEvent]:
    item = _tool_content(update.get("content"))
    return [ToolCallEvent(tool_call_id=string(update, "toolCallId"), is_update=True, appended=(item,))]


def _tool_contents(value: Any) -> tuple[ToolCallContent, ...]:
    if not isinstance(value, list):
        raise Malformed("tool call content is not an array")
    return tuple(_tool_content(item) for item in value)


def _tool_content(item: Any) -> ToolCallContent:
    if not isinstance(item, dict):
        raise Malformed("tool call content item is not an object")
    kind = item.get("type")
    if kind == "content":
        return ToolCallContent(kind="content", content=translate_content(item.get("content")))
    if kind == "diff":
        return _diff(item)
    if kind == "terminal":
        return ToolCallContent(kind="terminal", terminal_id=string(item, "terminalId"))
    # Unknown content (a newer ACP, or an extension): said, never fatal.
    return ToolCallContent(kind="content", content=TextPart(text=f"[content of type {kind!r} not shown]"))


def _diff(item: dict[str, Any]) -> ToolCallContent:
    changes = tuple(
        DiffChange(
            operation=str(change.get("operation") or "modify"),
            path=change["path"],
            old_path=change.get("oldPath") if isinstance(change.get("oldPath"), str) else None,
        )
        for change in item.get("changes") or ()
        if isinstance(change, dict) and isinstance(change.get("path"), str)
    )
    patch = item.get("patch")
    text = patch.get("text") if isinstance(patch, dict) and patch.get("format") == "git_patch" else None
    first = changes[0].path if changes else None
    return ToolCallContent(
        kind="diff", path=first, changes=changes, patch=text if isinstance(text, str) else None
    )


def _locations(value: Any) -> tuple[ToolCallLocation, ...]:
    if not isinstance(value, list):
        raise Malformed("locations is not an array")
    return tuple(
        ToolCallLocation(path=loc["path"], line=loc.get("line") if isinstance(loc.get("line"), int) else None)
        for loc in value
        if isinstance(loc, dict) and isinstance(loc.get("path"), str)
    )


def _text_value(value: Any) -> str:
    if not isinstance(value, str):
        raise Malformed("expected a string")
    return value


def _as_is(value: Any) -> Any:
    return value


_TOOL_VALUES: dict[str, Callable[[Any], Any]] = {
    "title": _text_value,
    "kind": _text_value,  # an open enum: an unknown kind shows as it is
    "status": _text_value,
    "content": _tool_contents,
    "locations": _locations,
}


# --- plans, commands, options, info, usage -------------------------------------------------------------


def _plan_update(_: str, update: dict[str, Any]) -> Sequence[SessionEvent]:
    plan = update.get("plan")
    if not isinstance(plan, dict):
        raise Malformed("plan is not an object")
    plan_id = string(plan, "planId")
    if plan.get("type") != "items":
        return [Notice(level=NoticeLevel.INFO, text=f"ignored a plan of unknown type {plan.get('type')!r}")]
    entries = tuple(
        PlanEntry(
            content=str(entry.get("content") or ""),
            priority=str(entry.get("priority") or "medium"),
            status=str(entry.get("status") or "pending"),
        )
        for entry in plan.get("entries") or ()
        if isinstance(entry, dict)
    )
    return [PlanEvent(entries=entries, plan_id=plan_id)]


def _commands(_: str, update: dict[str, Any]) -> Sequence[SessionEvent]:
    if not isinstance(update.get("availableCommands"), list):  # required: never read as "no commands"
        raise Malformed("availableCommands is not an array")
    return [CommandsEvent(commands=commands_v2(update["availableCommands"]))]


def commands_v2(raw: Any) -> tuple[Command, ...]:
    """v2 `availableCommands` (an update's, or a new or resume answer's): entries without a name are
    left out; an entry of a type other than `command` (newer, or an extension) is offered by its name."""
    commands = []
    for item in raw if isinstance(raw, list) else ():
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        given = item.get("input")
        # Tagged in v2 ({"type": "text", "hint": ...}); an unknown input type is taken as plain text.
        hint = given.get("hint") if isinstance(given, dict) else None
        commands.append(
            Command(
                name=item["name"],
                description=str(item.get("description") or ""),
                input_hint=hint if isinstance(hint, str) else None,
            )
        )
    return tuple(commands)


def _config_options(_: str, update: dict[str, Any]) -> Sequence[SessionEvent]:
    if not isinstance(update.get("configOptions"), list):  # required: never read as "no options"
        raise Malformed("configOptions is not an array")
    return [ConfigOptionsEvent(options=config_options_v2(update["configOptions"]))]


def config_options_v2(raw: Any) -> tuple[ConfigOption, ...]:
    """v2 `configOptions`: as v1's, with `configId` for `id`; an option of an unknown `type` is hidden
    (the agent keeps its default)."""
    if not isinstance(raw, list):
        return ()
    renamed = [
        {("id" if key == "configId" else key): value for key, value in item.items()}
        for item in raw
        if isinstance(item, dict)
    ]
    return config_options_from_wire(renamed)


def _session_info(_: str, update: dict[str, Any]) -> Sequence[SessionEvent]:
    fields: dict[str, Any] = {}
    for wire, name in (("title", "title"), ("updatedAt", "updated_at")):
        if wire in update:
            value = update[wire]
            fields[name] = value if isinstance(value, str) else None
    return [SessionInfoEvent(**fields)]


_HUGE = 2**63  # past it a figure is absurd (and a ratio of two may not fit a float)


def _usage(_: str, update: dict[str, Any]) -> Sequence[SessionEvent]:
    used, size = update.get("used"), update.get("size")
    if not (isinstance(used, int) and isinstance(size, int) and 0 <= used < _HUGE and 0 <= size < _HUGE):
        raise Malformed("usage_update needs integer used and size, of at most 2**63")
    cost = update.get("cost")
    amount = cost.get("amount") if isinstance(cost, dict) else None
    currency = cost.get("currency") if isinstance(cost, dict) else None
    return [
        UsageEvent(
            used=used,
            size=size,
            cost_amount=float(amount) if isinstance(amount, int | float) and abs(amount) < _HUGE else None,
            cost_currency=currency if isinstance(currency, str) else None,
        )
    ]


# --- helpers -------------------------------------------------------------------------------------------


def _bytes(data: str) -> bytes:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise Malformed("terminal data is not base64") from None
