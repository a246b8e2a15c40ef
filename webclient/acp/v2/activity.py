"""ACP v2 updates about the session's activity rather than its conversation: the state (with its
background work and an error stop reason's error), the agent's notices and context compactions.

Like every v2 translator, they take what the schema requires and tolerate the rest: an unknown state,
severity, status or background kind passes on as the agent sent it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from webclient.acp.content_blocks import translate_content
from webclient.acp.models import (
    BackgroundWork,
    CompactionEvent,
    Notice,
    NoticeLevel,
    SessionEvent,
    StateEvent,
    TextPart,
    TurnError,
)

# A notice's severity -> the level it shows with; an unknown (newer or `_`-prefixed) one is informational.
SEVERITIES = {"info": NoticeLevel.INFO, "warning": NoticeLevel.WARNING, "error": NoticeLevel.ERROR}
# Each kind of background work -> the key of its id.
BACKGROUND_IDS = {"terminal": "terminalId", "tool_call": "toolCallId"}


class Malformed(ValueError):
    """An update that breaks the v2 schema; it is ignored with a notice."""


def state_update(_: str, update: dict[str, Any]) -> Sequence[SessionEvent]:
    state = string(update, "state")
    reason = update.get("stopReason")
    fields: dict[str, Any] = {"state": state, "stop_reason": reason if isinstance(reason, str) else None}
    if "background" in update:
        fields["background"] = _background(update["background"])
    if reason == "error":
        fields["error"] = _turn_error(update.get("error"))
    return [StateEvent(**fields)]


def _background(raw: Any) -> tuple[BackgroundWork, ...]:
    """The background list (null: none); an entry without its id is left out, one of a kind we do not
    know is kept by whatever id it has, so that it is at least listed."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise Malformed("background is neither an array nor null")
    work = []
    for item in raw:
        kind = item.get("type") if isinstance(item, dict) else None
        if not isinstance(kind, str):
            continue
        key = BACKGROUND_IDS.get(kind)
        ident = item.get(key) if key else next((v for k, v in item.items() if k.endswith("Id")), None)
        if isinstance(ident, str):
            work.append(BackgroundWork(kind=kind, id=ident))
    return tuple(work)


def _turn_error(raw: Any) -> TurnError:
    if not isinstance(raw, dict):
        return TurnError(message="the agent gave no reason")
    code, message = raw.get("code"), raw.get("message")
    return TurnError(
        code=code if isinstance(code, int) and not isinstance(code, bool) else None,
        message=message if isinstance(message, str) and message.strip() else "the agent gave no reason",
        data=raw.get("data"),
    )


def notice(_: str, update: dict[str, Any]) -> Sequence[SessionEvent]:
    """The agent's own notice (a warning about limits, a deprecation): shown as the agent wrote it."""
    title = string(update, "title")
    severity = update.get("severity")
    description = update.get("description")
    return [
        Notice(
            level=SEVERITIES.get(severity if isinstance(severity, str) else "", NoticeLevel.INFO),
            text=title,
            description=description if isinstance(description, str) and description.strip() else None,
            from_agent=True,
        )
    ]


def compaction_update(_: str, update: dict[str, Any]) -> Sequence[SessionEvent]:
    fields: dict[str, Any] = {
        "compaction_id": string(update, "compactionId"),
        "status": string(update, "status"),
    }
    summary = update.get("summary")
    if isinstance(summary, list):
        fields["summary"] = _text(summary)
    error = update.get("error")
    if isinstance(error, str):
        fields["error"] = error
    return [CompactionEvent(**fields)]


def compaction_summary_chunk(_: str, update: dict[str, Any]) -> Sequence[SessionEvent]:
    return [
        CompactionEvent(compaction_id=string(update, "compactionId"), appended=_text([update.get("content")]))
    ]


def _text(blocks: list[Any]) -> str:
    parts = (translate_content(block) for block in blocks)
    return "".join(part.text for part in parts if isinstance(part, TextPart))


def string(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise Malformed(f"{key} is missing or not a string")
    return value
