"""A prompt the user composed: the composer's text, with the attachments this tab's server side holds.

The page never holds content blocks. Each tab's attachments (a workspace file picked with `@`, an image,
the files of a suggestion taken with Tab or Edit) live here, under opaque ids; the page shows them as
pills and, where a file stands in the sentence, as an inline token `⟦name⟧` in the composer's text. The
prompt action sends the text and the ids of the pills the user kept, and `compose` rebuilds the blocks in
the order they stand in the text: a suggestion taken into the composer and sent unchanged is sent exactly
as the agent wrote it (its `PromptBlock`s keep the agent's own blocks, which only the agent layer reads).

Everything here is still user input: each part must be of a kind the agent accepts in prompts (text and
resource links always; images, audio and embedded resources only when its promptCapabilities say so).
"""

from __future__ import annotations

import itertools
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from webclient.acp.models import (
    ContentPart,
    PromptBlock,
    PromptCapabilities,
    ResourceLinkPart,
    ResourcePart,
    TextPart,
)
from webclient.errors import Refused

MAX_ATTACHMENTS = 50
# The most text a prompt may carry, counted over its text and the text of every attachment (images and
# audio are bounded by the attach action's own size limit, and 50 of them at most).
MAX_PROMPT_CHARS = 200_000
# An inline reference in the composer's text. Brackets nobody types by accident, and that no label holds.
TOKEN_OPEN, TOKEN_CLOSE = "\u27e6", "\u27e7"
_TOKEN = re.compile(f"{TOKEN_OPEN}([^{TOKEN_OPEN}{TOKEN_CLOSE}\n]{{1,200}}){TOKEN_CLOSE}")

TextCleaner = Callable[[str], str]


class Offered(Protocol):
    """A whole prompt the composer can take: a suggestion, or a prompt taken back from waiting."""

    @property
    def parts(self) -> Sequence[ContentPart]: ...

    @property
    def blocks(self) -> Sequence[PromptBlock]: ...


class PromptRejected(Refused):
    """The composed prompt cannot be sent; the message is safe to show to the user."""


@dataclass(frozen=True)
class ComposedPrompt:
    """A prompt ready to send: its blocks, in order."""

    blocks: tuple[PromptBlock, ...]

    @property
    def parts(self) -> list[ContentPart]:
        """What the transcript shows of it."""
        return [block.part for block in self.blocks]


@dataclass(frozen=True)
class Held:
    """One attachment a tab's composer holds: its opaque id, its label in the text, its block."""

    id: str
    label: str
    block: PromptBlock
    inline: bool  # whether its token stands in the text (files do; a pasted image is only a pill)

    @property
    def part(self) -> ContentPart:
        return self.block.part

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
        self._origin: tuple[str, tuple[PromptBlock, ...]] | None = None

    @property
    def held(self) -> list[Held]:
        return list(self._held.values())

    def add(self, part: ContentPart, *, inline: bool) -> Held:
        """Hold one more attachment (a picked file, an image); refuses past MAX_ATTACHMENTS."""
        if len(self._held) >= MAX_ATTACHMENTS:
            raise PromptRejected(f"a prompt can carry at most {MAX_ATTACHMENTS} attachments")
        (label,) = unique_labels([part], [h.label for h in self._held.values()])
        return self._hold(label, PromptBlock(part=part), inline=inline)

    def take(self, suggestion: Offered, clean: TextCleaner) -> tuple[str, list[Held]]:
        """Put a suggestion (or a prompt that waited) into the composer: the text to show and the
        attachments it now holds.

        The page asks only over an empty composer, but an attachment of the user's may still be on its
        way to the page: nothing held is dropped except what a token of the suggestion would name, so
        each token means the suggestion's own block.
        """
        self._origin = None
        others = [block for block in suggestion.blocks if not isinstance(block.part, TextPart)]
        labels = unique_labels([block.part for block in others])
        for old in list(self._held.values()):
            if old.label in labels:
                del self._held[old.id]
        held = [self._hold(label, block, inline=True) for label, block in zip(labels, others, strict=True)]
        text = composer_text(suggestion.parts, clean)
        # Sent unchanged, it goes out exactly as the agent wrote it, `_meta` and annotations included;
        # unless cleaning removed hidden characters: then what the user saw is what is sent.
        if all(_defuse(clean(p.text)) == p.text for p in suggestion.parts if isinstance(p, TextPart)):
            self._origin = (text, tuple(suggestion.blocks))
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
            composed = ComposedPrompt(self._origin[1])
        else:
            composed = ComposedPrompt(tuple(self._blocks(text, kept)))
        _check(composed.parts, prompt_caps)
        return composed

    def _hold(self, label: str, block: PromptBlock, *, inline: bool) -> Held:
        held = Held(id=f"att-{secrets.token_urlsafe(9)}", label=label, block=block, inline=inline)
        self._held[held.id] = held
        return held

    def _extras(self, text: str, kept: Sequence[str]) -> list[Held]:
        """Kept attachments whose token is not in the text (pasted images, files whose token was deleted)."""
        in_text = {m.group(1) for m in _TOKEN.finditer(text)}
        return [h for h in self._held.values() if h.id in set(kept) and h.label not in in_text]

    def _blocks(self, text: str, kept: Sequence[str]) -> list[PromptBlock]:
        by_label = {h.label: h for h in self._held.values()}
        blocks: list[PromptBlock] = []
        position = 0
        for match in _TOKEN.finditer(text):
            if match.start() > position:
                blocks.append(_text(text[position : match.start()]))
            blocks.append(by_label[match.group(1)].block)
            position = match.end()
        if position < len(text):
            blocks.append(_text(text[position:]))
        # Whitespace before the first or after the last reference (the space typed after an `@file`) is
        # not worth a block of its own.
        while blocks and _blank_text(blocks[-1]):
            blocks.pop()
        while blocks and _blank_text(blocks[0]):
            blocks.pop(0)
        blocks.extend(h.block for h in self._extras(text, kept))
        return blocks


def _text(text: str) -> PromptBlock:
    return PromptBlock(part=TextPart(text=text))


def _blank_text(block: PromptBlock) -> bool:
    return isinstance(block.part, TextPart) and not block.part.text.strip()


def _check(parts: Sequence[ContentPart], prompt_caps: PromptCapabilities) -> None:
    """Refuse a prompt that is empty, holds a kind the agent does not accept, or is too long."""
    if not parts or all(isinstance(p, TextPart) and not p.text.strip() for p in parts):
        raise PromptRejected("an empty prompt was not sent")
    refused = next((p.kind for p in parts if not prompt_caps.allows(p.kind)), None)
    if refused is not None:
        raise PromptRejected(f"this agent does not accept {refused} attachments; nothing was sent")
    size = sum(len(p.text or "") for p in parts if isinstance(p, TextPart | ResourcePart))
    if size > MAX_PROMPT_CHARS:
        raise PromptRejected(
            f"the prompt with its attachments is {size:,} characters, more than the "
            f"{MAX_PROMPT_CHARS:,} allowed; nothing was sent"
        )
