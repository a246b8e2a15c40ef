"""A prompt the user composed: the composer's text, with the attachments this tab's server side holds.

The page never holds content blocks. Each tab's attachments (a workspace file picked with `@`, an image,
the files of a suggestion taken with Tab or Edit) live here, under opaque ids; the page shows them as
pills and, where a file stands in the sentence, as an inline token `⟦name⟧` in the composer's text. The
prompt action sends the text and the ids of the pills the user kept, and `compose` rebuilds the blocks in
the order they stand in the text: a suggestion taken into the composer and sent unchanged is sent exactly
as the agent wrote it.

Everything here is still user input: each block must be of a type the agent accepts in prompts (text and
resource_link always; image, audio and embedded resources only when its promptCapabilities say so).
"""

from __future__ import annotations

import itertools
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from webclient.acp.models import ContentPart, PromptCapabilities, ResourceLinkPart, ResourcePart, TextPart
from webclient.acp.suggestions import Suggestion
from webclient.acp.translate import translate_content

KNOWN_TYPES = frozenset({"text", "resource_link", "image", "audio", "resource"})
MAX_ATTACHMENTS = 50
# The most text a prompt may carry, counted over its text and the text of every attachment (images and
# audio are bounded by the attach action's own size limit, and 50 of them at most).
MAX_PROMPT_CHARS = 200_000
# An inline reference in the composer's text. Brackets nobody types by accident, and that no label holds.
TOKEN_OPEN, TOKEN_CLOSE = "\u27e6", "\u27e7"
_TOKEN = re.compile(f"{TOKEN_OPEN}([^{TOKEN_OPEN}{TOKEN_CLOSE}\n]{{1,200}}){TOKEN_CLOSE}")

TextCleaner = Callable[[str], str]


class PromptRejected(ValueError):
    """The composed prompt cannot be sent; the message is safe to show to the user."""


@dataclass(frozen=True)
class ComposedPrompt:
    parts: list[ContentPart]
    wire: list[dict[str, Any]]


@dataclass(frozen=True)
class Held:
    """One attachment a tab's composer holds: its opaque id, its label in the text, its block."""

    id: str
    label: str
    part: ContentPart
    block: dict[str, Any]
    inline: bool  # whether its token stands in the text (files do; a pasted image is only a pill)

    @property
    def token(self) -> str:
        return f"{TOKEN_OPEN}{self.label}{TOKEN_CLOSE}"


def base_label(part: ContentPart) -> str:
    """The name an attachment goes by in the composer's text: a file's name, else its kind."""
    if isinstance(part, ResourceLinkPart):
        name = part.name or part.uri
    elif isinstance(part, ResourcePart):
        name = part.uri.rstrip("/").rsplit("/", 1)[-1] or part.uri
    else:
        name = part.kind
    cleaned = "".join(ch for ch in name if ch not in (TOKEN_OPEN, TOKEN_CLOSE, "\n", "\r")).strip()
    return cleaned[:120] or part.kind


def unique_labels(parts: Sequence[ContentPart], taken: Sequence[str] = ()) -> list[str]:
    """A label for each part, made unique ("a.py", "a.py 2") so each token names one attachment."""
    used = set(taken)
    labels: list[str] = []
    for part in parts:
        base = base_label(part)
        label = next(
            candidate
            for candidate in itertools.chain([base], (f"{base} {n}" for n in itertools.count(2)))
            if candidate not in used
        )
        used.add(label)
        labels.append(label)
    return labels


def composer_text(parts: Sequence[ContentPart], clean: TextCleaner) -> str:
    """What the composer shows for these parts: cleaned text, each other block as a token where it stands.

    Token brackets in the agent's own text become plain ones: a suggestion must not be able to write a
    token that names an attachment it does not carry.
    """
    others = [p for p in parts if not isinstance(p, TextPart)]
    labels = iter(unique_labels(others))
    return "".join(
        _defuse(clean(p.text)) if isinstance(p, TextPart) else f"{TOKEN_OPEN}{next(labels)}{TOKEN_CLOSE}"
        for p in parts
    )


def _defuse(text: str) -> str:
    return text.replace(TOKEN_OPEN, "[").replace(TOKEN_CLOSE, "]")


class ComposerAttachments:
    """One tab's composer attachments, by opaque id. Lives as long as the tab's connection."""

    def __init__(self) -> None:
        self._held: dict[str, Held] = {}
        # A suggestion taken into the composer: its composer text and its blocks as the agent sent them.
        self._origin: tuple[str, list[dict[str, Any]]] | None = None

    @property
    def held(self) -> list[Held]:
        return list(self._held.values())

    def add(self, block: dict[str, Any], *, inline: bool) -> Held:
        """Hold one more attachment (a picked file, an image); refuses past MAX_ATTACHMENTS."""
        if len(self._held) >= MAX_ATTACHMENTS:
            raise PromptRejected(f"a prompt can carry at most {MAX_ATTACHMENTS} attachments")
        part = translate_content(block)
        (label,) = unique_labels([part], [h.label for h in self._held.values()])
        return self._hold(label, part, block, inline=inline)

    def take(self, suggestion: Suggestion, clean: TextCleaner) -> tuple[str, list[Held]]:
        """Put a suggestion into the (empty) composer: the text to show and the attachments it now holds.

        The page asks only over an empty composer, but an attachment of the user's may still be on its
        way to the page: nothing held is dropped except what a token of the suggestion would name, so
        each token means the suggestion's own block.
        """
        self._origin = None
        others = [
            (part, block)
            for part, block in zip(suggestion.parts, suggestion.wire, strict=True)
            if not isinstance(part, TextPart)
        ]
        labels = unique_labels([part for part, _ in others])
        for old in list(self._held.values()):
            if old.label in labels:
                del self._held[old.id]
        held = [
            self._hold(label, part, dict(block), inline=True)
            for label, (part, block) in zip(labels, others, strict=True)
        ]
        text = composer_text(suggestion.parts, clean)
        # Sent unchanged, it goes out exactly as the agent wrote it, `_meta` and annotations included;
        # unless cleaning removed hidden characters: then what the user saw is what is sent.
        if all(_defuse(clean(p.text)) == p.text for p in suggestion.parts if isinstance(p, TextPart)):
            self._origin = (text, [dict(b) for b in suggestion.wire])
        return text, held

    def drop(self, attachment_id: str) -> None:
        """The user removed this attachment from the composer: forget it, so no token brings it back."""
        self._held.pop(attachment_id, None)

    def clear(self) -> None:
        self._held.clear()
        self._origin = None

    def compose(self, text: str, kept: Sequence[str], prompt_caps: PromptCapabilities) -> ComposedPrompt:
        """The prompt for this text and these kept ids: blocks in the order they stand in the text.

        A token stands for the attachment with that label; attachments kept as pills but without a token
        in the text follow it, in the order they were added. A token this tab does not hold is refused
        rather than sent as words: the file it stood for would silently be missing.
        """
        if len(kept) > MAX_ATTACHMENTS:
            raise PromptRejected(f"a prompt can carry at most {MAX_ATTACHMENTS} attachments")
        # What the page refers to but this tab does not hold (the page reconnected, so the server side
        # of its composer is new) is refused rather than silently left out or sent as words.
        by_label = {h.label: h for h in self._held.values()}
        unknown = [m.group(1) for m in _TOKEN.finditer(text) if m.group(1) not in by_label]
        if unknown:
            raise PromptRejected(
                f"the composer refers to {unknown[0]!r}, which it no longer holds (the page reconnected?); "
                "remove the reference or attach the file again. Nothing was sent"
            )
        if any(attachment_id not in self._held for attachment_id in kept):
            raise PromptRejected(
                "an attachment in the composer is no longer held (the page reconnected?); remove it and "
                "attach it again. Nothing was sent"
            )
        if self._origin is not None and text == self._origin[0] and not self._extras(text, kept):
            blocks = [dict(b) for b in self._origin[1]]
        else:
            blocks = self._blocks(text, kept)
        if not blocks or not any(b.get("type") != "text" or b.get("text", "").strip() for b in blocks):
            raise PromptRejected("an empty prompt was not sent")
        parts = [_part(b, prompt_caps) for b in blocks]
        size = sum(len(p.text or "") for p in parts if isinstance(p, TextPart | ResourcePart))
        if size > MAX_PROMPT_CHARS:
            raise PromptRejected(
                f"the prompt with its attachments is {size:,} characters, more than the "
                f"{MAX_PROMPT_CHARS:,} allowed; nothing was sent"
            )
        return ComposedPrompt(parts=parts, wire=blocks)

    def _hold(self, label: str, part: ContentPart, block: dict[str, Any], *, inline: bool) -> Held:
        held = Held(id=f"att-{secrets.token_urlsafe(9)}", label=label, part=part, block=block, inline=inline)
        self._held[held.id] = held
        return held

    def _extras(self, text: str, kept: Sequence[str]) -> list[Held]:
        """Kept attachments whose token is not in the text (pasted images, files whose token was deleted)."""
        in_text = {m.group(1) for m in _TOKEN.finditer(text)}
        return [h for h in self._held.values() if h.id in set(kept) and h.label not in in_text]

    def _blocks(self, text: str, kept: Sequence[str]) -> list[dict[str, Any]]:
        by_label = {h.label: h for h in self._held.values()}
        blocks: list[dict[str, Any]] = []
        position = 0
        for match in _TOKEN.finditer(text):
            if match.start() > position:
                blocks.append({"type": "text", "text": text[position : match.start()]})
            blocks.append(dict(by_label[match.group(1)].block))
            position = match.end()
        if position < len(text):
            blocks.append({"type": "text", "text": text[position:]})
        # Whitespace before the first or after the last reference (the space typed after an `@file`) is
        # not worth a block of its own.
        while blocks and _blank_text(blocks[-1]):
            blocks.pop()
        while blocks and _blank_text(blocks[0]):
            blocks.pop(0)
        blocks.extend(dict(h.block) for h in self._extras(text, kept))
        return blocks


def _blank_text(block: dict[str, Any]) -> bool:
    return block.get("type") == "text" and not str(block.get("text", "")).strip()


def _part(block: dict[str, Any], prompt_caps: PromptCapabilities) -> ContentPart:
    block_type = block.get("type")
    if not isinstance(block_type, str) or block_type not in KNOWN_TYPES:
        raise PromptRejected(f"an attachment has the unknown type {block_type!r}; nothing was sent")
    if not prompt_caps.allows(block_type):
        raise PromptRejected(f"this agent does not accept {block_type} attachments; nothing was sent")
    try:
        return translate_content(block)
    except ValueError as exc:
        raise PromptRejected(f"an attachment is malformed ({exc}); nothing was sent") from exc
