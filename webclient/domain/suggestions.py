"""Prompt suggestions (`prompt_suggestions_update`): parsing and validation, pure and I/O-free.

Every rule here comes from the RFD (`prompt-suggestions-rfd.md`) and the Client rules in the protocol
notes. An update replaces the session's list; a suggestion we cannot use is skipped whole (dropping one
block would change what the prompt asks for) while its siblings stay; a malformed update is rejected
with a reason and changes nothing.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from webclient.acp.models import DISPLAYABLE_IMAGE_TYPES, AudioPart, ContentPart, ImagePart, TextPart
from webclient.acp.translate import translate_content

# Always allowed: every Agent accepts these in prompts and every advertising Client can offer them.
BASELINE_TYPES = frozenset({"text", "resource_link"})
# Optional block type -> the field that advertises it, in the Agent's promptCapabilities and in our
# promptSuggestions object alike (`resource` blocks are "embedded context").
OPTIONAL_TYPES: Mapping[str, str] = {"image": "image", "audio": "audio", "resource": "embeddedContext"}


class MalformedUpdate(ValueError):
    """The update as a whole is unusable (rule 4); the current list stays as it was."""


@dataclass(frozen=True)
class Suggestion:
    """One offer for the user's next prompt.

    `wire` holds the agent's blocks exactly as received: a chosen suggestion is sent back as the
    `prompt` of `session/prompt` unchanged (deep-equal), while `parts` is what the page shows.
    """

    parts: tuple[ContentPart, ...]
    wire: tuple[dict[str, Any], ...]

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def attachments(self) -> tuple[ContentPart, ...]:
        return tuple(p for p in self.parts if not isinstance(p, TextPart))


@dataclass(frozen=True)
class Skipped:
    """A suggestion left out of the list, and why (kept for the notices agent developers read)."""

    index: int
    reason: str
    agent_fault: bool = True


@dataclass(frozen=True)
class ParsedUpdate:
    suggestions: tuple[Suggestion, ...]
    skipped: tuple[Skipped, ...]


def allowed_types(
    client_offer: Mapping[str, Any] | None, agent_prompt_caps: Mapping[str, Any]
) -> frozenset[str]:
    """Block types usable in a suggestion: the baseline, plus each type that BOTH sides advertise.

    Our own offer uses objects (`{}` = yes; omitted or null = no). The Agent's v1 promptCapabilities uses
    booleans; an object there (v2 style) counts as yes too, so we check presence, not truthiness, for it.
    """
    if client_offer is None:
        return frozenset()
    types = set(BASELINE_TYPES)
    for block_type, field in OPTIONAL_TYPES.items():
        ours = isinstance(client_offer.get(field), dict)
        theirs = agent_prompt_caps.get(field)
        if ours and (theirs is True or isinstance(theirs, dict)):
            types.add(block_type)
    return frozenset(types)


def parse_update(update: Mapping[str, Any], allowed: frozenset[str]) -> ParsedUpdate:
    """Validate one `prompt_suggestions_update` body; raises MalformedUpdate if it is unusable whole."""
    if "suggestions" not in update:
        raise MalformedUpdate("prompt_suggestions_update without a suggestions field")
    raw = update["suggestions"]
    if not isinstance(raw, list):
        raise MalformedUpdate(f"prompt_suggestions_update whose suggestions is {_json_type(raw)}, not a list")
    kept: list[Suggestion] = []
    skipped: list[Skipped] = []
    for index, entry in enumerate(raw):
        try:
            kept.append(_parse_suggestion(entry, allowed))
        except _Unusable as exc:
            skipped.append(Skipped(index=index, reason=str(exc), agent_fault=exc.agent_fault))
    return ParsedUpdate(tuple(kept), tuple(skipped))


def parse_legacy(meta: Mapping[str, Any] | None) -> ParsedUpdate | None:
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
    return parse_update({"suggestions": converted}, BASELINE_TYPES)


class _Unusable(ValueError):
    def __init__(self, reason: str, *, agent_fault: bool = True) -> None:
        super().__init__(reason)
        self.agent_fault = agent_fault


def _parse_suggestion(entry: Any, allowed: frozenset[str]) -> Suggestion:
    if not isinstance(entry, dict):
        raise _Unusable(f"a suggestion must be an object, got {_json_type(entry)}")
    prompt = entry.get("prompt")
    if not isinstance(prompt, list):
        raise _Unusable("a suggestion without a prompt list")
    if not prompt:
        raise _Unusable("a suggestion with an empty prompt")
    parts = tuple(_parse_block(i, block, allowed) for i, block in enumerate(prompt))
    if all(isinstance(p, TextPart) and not p.text.strip() for p in parts):
        raise _Unusable("a suggestion whose only content is empty or whitespace-only text")
    return Suggestion(parts=parts, wire=tuple(prompt))


def _parse_block(index: int, block: Any, allowed: frozenset[str]) -> ContentPart:
    block_type = block.get("type") if isinstance(block, dict) else None
    if not isinstance(block_type, str):
        raise _Unusable(f"block {index} has no type")
    if block_type not in BASELINE_TYPES and block_type not in OPTIONAL_TYPES:
        raise _Unusable(f"block {index} has the unknown type {block_type!r}")
    if block_type not in allowed:
        raise _Unusable(f"block {index} is {block_type!r}, which is not allowed on both sides")
    try:
        part = translate_content(block)
    except ValueError as exc:
        raise _Unusable(f"block {index} ({block_type}) is malformed: {exc}") from exc
    _check_media(index, part)
    return part


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


@dataclass(frozen=True)
class SuggestionPolicy:
    """What was negotiated at `initialize`: whether we advertised the capability, and usable types."""

    advertised: bool
    allowed: frozenset[str]


@dataclass(frozen=True)
class Outcome:
    """What one incoming update means: the list to offer (None: leave it) and diagnostics to show."""

    offered: tuple[Suggestion, ...] | None
    notices: tuple[str, ...] = ()


class SuggestionLedger:
    """One session's view of the agent's suggestion list, and the Agent rules a client can observe.

    Pure bookkeeping; the caller supplies events in order and shows the returned diagnostics.
    """

    def __init__(self, policy: SuggestionPolicy) -> None:
        self.policy = policy
        self.replaying = False
        self.seen_real_update = False
        self._agent_list_nonempty = False
        self._awaiting_replacement = False

    def receive(self, update: Mapping[str, Any]) -> Outcome:
        """A `prompt_suggestions_update` arrived for this session."""
        if not self.policy.advertised:
            return Outcome(
                None,
                (
                    "the agent sent prompt suggestions although this client did not advertise "
                    "the promptSuggestions capability; they were ignored",
                ),
            )
        try:
            parsed = parse_update(update, self.policy.allowed)
        except MalformedUpdate as exc:
            return Outcome(None, (f"{exc}; the current suggestions were kept",))
        self.seen_real_update = True
        return self._accept(parsed, len(update["suggestions"]))

    def receive_legacy(self, meta: Mapping[str, Any] | None) -> Outcome:
        """A `session_info_update` arrived; its `_meta.promptSuggestions` is the pre-RFD channel."""
        if not self.policy.advertised:
            return Outcome(None)  # suggestions are switched off: none from any channel
        if self.seen_real_update or not meta or "promptSuggestions" not in meta:
            return Outcome(None)  # the RFD's update supersedes the legacy key for this session
        try:
            parsed = parse_legacy(meta)
        except MalformedUpdate as exc:
            return Outcome(None, (f"{exc}; the current suggestions were kept",))
        assert parsed is not None
        return self._accept(parsed, len(parsed.suggestions) + len(parsed.skipped))

    def prompt_accepted(self) -> None:
        """We sent a prompt: a non-empty list the agent sent earlier is now out of date."""
        self._awaiting_replacement = self._agent_list_nonempty

    def turn_settled(self) -> tuple[str, ...]:
        """The turn ended and its grace period passed: did the agent replace or withdraw its list?"""
        if not self._awaiting_replacement:
            return ()
        self._awaiting_replacement = False
        return (
            "the agent accepted a new prompt but neither replaced nor withdrew its earlier, non-empty "
            "suggestion list (the RFD requires one or the other)",
        )

    def begin_replay(self) -> None:
        self.replaying = True
        self._agent_list_nonempty = False
        self._awaiting_replacement = False

    def end_replay(self) -> None:
        self.replaying = False

    def _accept(self, parsed: ParsedUpdate, sent: int) -> Outcome:
        notices = [f"skipped suggestion {s.index + 1}: {s.reason}" for s in parsed.skipped]
        if self.replaying:
            notices.append(
                "the agent sent prompt suggestions during session/load replay; they are not offered"
            )
            return Outcome(None, tuple(notices))
        self._agent_list_nonempty = sent > 0
        self._awaiting_replacement = False
        return Outcome(parsed.suggestions, tuple(notices))
