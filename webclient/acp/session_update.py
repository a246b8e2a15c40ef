"""One `session/update` of either ACP version into our events: the envelope, the suggestions, the notices.

Each version supplies the translators of its own variants (`webclient/acp/v1/translate.py`,
`webclient/acp/v2/translate.py`); what both share is here: reading the envelope, turning prompt
suggestions into checked models (`webclient/acp/suggestions.py`), and saying why an update is unknown or
malformed. Nothing here raises on agent input.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from webclient.acp.content_blocks import short_error
from webclient.acp.models import Notice, NoticeLevel, SessionEvent, Translation
from webclient.acp.suggestions import SUGGESTIONS_VARIANT, legacy_suggestions, read_suggestions

# Variants the SDK knows from the unstable protocol; they are not ACP v1 and we do not show them.
UNSTABLE_VARIANTS = frozenset({"plan_update", "plan_removed"})


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


def translate_with(
    params: Any, variant: Callable[[str], VariantTranslator | None], suggestion_types: frozenset[str]
) -> Translation:
    """One `session/update` of either version: its envelope read, prompt suggestions parsed against the
    block types both sides advertised (`suggestion_types`), the rest by the `variant` translator; an
    unknown or malformed update becomes a notice."""
    envelope = read_envelope(params)
    if isinstance(envelope, Translation):
        return envelope
    session_id, update = envelope
    kind = update["sessionUpdate"]
    if kind == SUGGESTIONS_VARIANT:
        return Translation(session_id, (read_suggestions(update, suggestion_types),))
    translate = variant(kind)
    if translate is None:
        return Translation(session_id, (unknown_variant_notice(kind),))
    try:
        events = translate(session_id, update)
    except Exception as exc:  # whatever the agent sent makes a notice, never a dead reader
        return malformed(session_id, f"malformed {kind} update was ignored", short_error(exc))
    return Translation(session_id, (*events, *_legacy(kind, update)))


def _legacy(kind: str, update: dict[str, Any]) -> tuple[SessionEvent, ...]:
    # Pre-RFD peers send their suggestions in `session_info_update._meta.promptSuggestions`.
    found = legacy_suggestions(update.get("_meta")) if kind == "session_info_update" else None
    return () if found is None else (found,)


def unknown_variant_notice(variant: str) -> Notice:
    if variant in UNSTABLE_VARIANTS:
        text = f"ignored the unstable update {variant!r}, which this client does not show"
    else:
        text = f"ignored an update of unknown type {variant!r}"
    return Notice(level=NoticeLevel.INFO, text=text)


def malformed(session_id: str | None, text: str, detail: Any) -> Translation:
    notice = Notice(level=NoticeLevel.WARNING, text=text, detail=_clip(repr(detail)))
    return Translation(session_id, (notice,))


def _clip(text: str, limit: int = 500) -> str:
    return text if len(text) <= limit else text[:limit] + "…"
