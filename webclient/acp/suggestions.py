"""Prompt suggestions on the wire (`prompt_suggestions_update`): reading and validating them, pure.

The wire shape and the content rules of the RFD (`prompt-suggestions-rfd.md`) live here: which block
types both sides advertised, what makes a suggestion unusable (skipped whole: dropping one block would
change what the prompt asks for) and what makes a whole update malformed. Suggestions leave the protocol
layer parsed, as a `SuggestionsEvent`; the session's bookkeeping (replace, withdraw, replay, the
diagnostics) is the domain's (`webclient/domain/suggestions.py`).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from webclient.acp.content_blocks import translate_content
from webclient.acp.models import (
    DISPLAYABLE_IMAGE_TYPES,
    AudioPart,
    ContentPart,
    ImagePart,
    PromptCapabilities,
    ResourceLinkPart,
    Skipped,
    Suggestion,
    SuggestionsEvent,
    TextPart,
)

SUGGESTIONS_VARIANT = "prompt_suggestions_update"
# The most suggestions one list keeps: 20,000 of them once took 37 s and a 90 MB frame to show. Entries
# past it are not even read; one skip says how many there were.
MAX_SUGGESTIONS = 50

# Always allowed: every Agent accepts these in prompts and every advertising Client can offer them.
BASELINE_TYPES = frozenset({"text", "resource_link"})
# Optional block type -> the field that advertises it, in the Agent's promptCapabilities and in our
# promptSuggestions object alike (`resource` blocks are "embedded context").
OPTIONAL_TYPES: Mapping[str, str] = {"image": "image", "audio": "audio", "resource": "embeddedContext"}


class MalformedUpdate(ValueError):
    """The update as a whole is unusable (rule 4); the current list stays as it was."""


def allowed_types(client_offer: Mapping[str, Any] | None, agent_prompt: PromptCapabilities) -> frozenset[str]:
    """Block types usable in a suggestion: the baseline, plus each type that BOTH sides advertise.

    Our own offer uses objects (`{}` = yes; omitted or null = no); the agent's side comes translated,
    where `true` and an object both already count as yes.
    """
    if client_offer is None:
        return frozenset()
    types = set(BASELINE_TYPES)
    for block_type, field in OPTIONAL_TYPES.items():
        if isinstance(client_offer.get(field), dict) and agent_prompt.allows(block_type):
            types.add(block_type)
    return frozenset(types)


def offered_types(session_capabilities: Any) -> Mapping[str, Any] | None:
    """Our `promptSuggestions` offer in the client's `session` capabilities we sent (v1 and v2 alike),
    or None when we did not advertise suggestions."""
    offer = session_capabilities.get("promptSuggestions") if isinstance(session_capabilities, dict) else None
    return offer if isinstance(offer, dict) else None


def read_suggestions(update: Mapping[str, Any], allowed: frozenset[str]) -> SuggestionsEvent:
    """One `prompt_suggestions_update` body as our event; never raises (a malformed one says why)."""
    try:
        return parse_update(update, allowed)
    except MalformedUpdate as exc:
        return SuggestionsEvent(malformed=str(exc))


def legacy_suggestions(meta: Any) -> SuggestionsEvent | None:
    """The suggestions in a `session_info_update`'s `_meta` as our event, or None when it has none."""
    try:
        return parse_legacy(meta if isinstance(meta, dict) else None)
    except MalformedUpdate as exc:
        return SuggestionsEvent(malformed=str(exc), legacy=True)


def parse_update(update: Mapping[str, Any], allowed: frozenset[str]) -> SuggestionsEvent:
    """Validate one `prompt_suggestions_update` body; raises MalformedUpdate if it is unusable whole."""
    if "suggestions" not in update:
        raise MalformedUpdate("prompt_suggestions_update without a suggestions field")
    raw = update["suggestions"]
    if not _meta_ok(update):
        raise MalformedUpdate(f"prompt_suggestions_update whose _meta is {_json_type(update['_meta'])}")
    if not isinstance(raw, list):
        raise MalformedUpdate(f"prompt_suggestions_update whose suggestions is {_json_type(raw)}, not a list")
    kept: list[Suggestion] = []
    skipped: list[Skipped] = []
    for index, entry in enumerate(raw[:MAX_SUGGESTIONS]):
        try:
            kept.append(_parse_suggestion(entry, allowed))
        except _Unusable as exc:
            skipped.append(Skipped(index, str(exc), exc.agent_fault, exc.rule))
    if len(raw) > MAX_SUGGESTIONS:
        reason = (
            f"it and the {len(raw) - MAX_SUGGESTIONS - 1:,} after it were left out: a list offers at most "
            f"{MAX_SUGGESTIONS} suggestions"
        )
        skipped.append(Skipped(index=MAX_SUGGESTIONS, reason=reason, agent_fault=False, rule="display"))
    return SuggestionsEvent(tuple(kept), tuple(skipped))


def parse_legacy(meta: Mapping[str, Any] | None) -> SuggestionsEvent | None:
    """Suggestions from `session_info_update._meta.promptSuggestions` (pre-RFD peers), or None.

    Accepts both shapes seen in the wild: a bare list of `{"text": ...}` entries, and
    `{"suggestions": [...]}`. Each entry becomes a prompt of one text block.
    """
    if not meta or "promptSuggestions" not in meta:
        return None
    value = meta["promptSuggestions"]
    entries = value.get("suggestions") if isinstance(value, dict) else value
    if not isinstance(entries, list):
        raise MalformedUpdate("legacy _meta.promptSuggestions is neither a list nor {suggestions: [...]}")
    converted: list[Any] = []
    for entry in entries:
        text = entry.get("text") if isinstance(entry, dict) else None
        converted.append({"prompt": [{"type": "text", "text": text}]} if isinstance(text, str) else entry)
    parsed = parse_update({"suggestions": converted}, BASELINE_TYPES)
    return SuggestionsEvent(parsed.suggestions, parsed.skipped, legacy=True)


class _Unusable(ValueError):
    def __init__(self, reason: str, *, agent_fault: bool = True, rule: str = "shape") -> None:
        super().__init__(reason)
        self.agent_fault = agent_fault
        self.rule = "display" if not agent_fault else rule


def _parse_suggestion(entry: Any, allowed: frozenset[str]) -> Suggestion:
    if not isinstance(entry, dict):
        raise _Unusable(f"a suggestion must be an object, got {_json_type(entry)}")
    prompt = entry.get("prompt")
    if not isinstance(prompt, list):
        raise _Unusable("a suggestion without a prompt list")
    if not prompt:
        raise _Unusable("a suggestion with an empty prompt")
    if not _meta_ok(entry):
        raise _Unusable(f"a suggestion whose _meta is {_json_type(entry['_meta'])}, not an object")
    parts = tuple(_parse_block(i, block, allowed) for i, block in enumerate(prompt))
    if all(isinstance(p, TextPart) and not p.text.strip() for p in parts):
        raise _Unusable("a suggestion whose only content is empty or whitespace-only text", rule="blank")
    return Suggestion(parts=parts, wire=tuple(prompt))


def _parse_block(index: int, block: Any, allowed: frozenset[str]) -> ContentPart:
    block_type = block.get("type") if isinstance(block, dict) else None
    if not isinstance(block_type, str):
        raise _Unusable(f"block {index} has no type")
    if block_type not in BASELINE_TYPES and block_type not in OPTIONAL_TYPES:
        raise _Unusable(f"block {index} has the unknown type {block_type!r}")
    if block_type not in allowed:
        raise _Unusable(f"block {index} is {block_type!r}, which is not allowed on both sides", rule="type")
    try:
        part = translate_content(block)
    except ValueError as exc:
        raise _Unusable(f"block {index} ({block_type}) is malformed: {exc}") from exc
    if isinstance(part, ResourceLinkPart) and not _is_uri(part.uri):
        raise _Unusable(f"block {index} is a resource_link whose uri {part.uri!r} is not an absolute URI")
    _check_media(index, part)
    return part


def _meta_ok(value: Mapping[str, Any]) -> bool:
    """`_meta` is optional and nullable; when present it is an object."""
    meta = value.get("_meta")
    return meta is None or isinstance(meta, dict)


def _is_uri(uri: str) -> bool:
    """An absolute URI (RFC 3986: a scheme, then something): what a prompt's resource_link must carry."""
    try:
        parts = urlsplit(uri)
    except ValueError:
        return False
    return bool(parts.scheme) and bool(parts.netloc or parts.path) and not any(c.isspace() for c in uri)


def _check_media(index: int, part: ContentPart) -> None:
    """A chip shows media from the block's own data only, so that data must be displayable as is."""
    if isinstance(part, ImagePart):
        if part.mime_type.lower() not in DISPLAYABLE_IMAGE_TYPES:
            raise _Unusable(
                f"block {index} is an image of type {part.mime_type!r}, which a chip does not show",
                agent_fault=False,
            )
        if not _is_base64(part.data):
            raise _Unusable(f"block {index} is an image whose data is not base64")
    elif isinstance(part, AudioPart):
        if not part.mime_type.lower().startswith("audio/"):
            raise _Unusable(f"block {index} is audio with the type {part.mime_type!r}")
        if not _is_base64(part.data):
            raise _Unusable(f"block {index} is audio whose data is not base64")


def _is_base64(data: str) -> bool:
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return False
    return bool(data)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), "a number"
    )
