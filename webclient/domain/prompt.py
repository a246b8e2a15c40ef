"""A prompt the user composed: the composer's text plus the attachments it holds, checked before sending.

Attachments come back from the browser as the JSON blocks the server put into the composer (a chip's
files taken with Edit or Tab). They are user input like any other: each must parse as a ContentBlock of a
type the agent accepts in prompts (text and resource_link always; image, audio and embedded resources
only when its promptCapabilities say so).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from webclient.acp.models import ContentPart, PromptCapabilities, TextPart
from webclient.acp.translate import translate_content

KNOWN_TYPES = frozenset({"text", "resource_link", "image", "audio", "resource"})
MAX_ATTACHMENTS = 50
# The most a prompt may carry, counted over its text and every attachment as the composer holds it.
MAX_PROMPT_CHARS = 200_000


class PromptRejected(ValueError):
    """The composed prompt cannot be sent; the message is safe to show to the user."""


@dataclass(frozen=True)
class ComposedPrompt:
    parts: list[ContentPart]
    wire: list[dict[str, Any]]


def compose(text: str, attachments: Sequence[str], prompt_caps: PromptCapabilities) -> ComposedPrompt:
    """The prompt to send: the text first (if any), then each attachment exactly as it was given."""
    if len(attachments) > MAX_ATTACHMENTS:
        raise PromptRejected(f"a prompt can carry at most {MAX_ATTACHMENTS} attachments")
    # Counted before anything is parsed, so an oversized prompt costs no more than its length.
    size = len(text) + sum(len(raw) for raw in attachments)
    if size > MAX_PROMPT_CHARS:
        raise PromptRejected(
            f"the prompt with its attachments is {size:,} characters, more than the "
            f"{MAX_PROMPT_CHARS:,} allowed; nothing was sent"
        )
    parts: list[ContentPart] = []
    wire: list[dict[str, Any]] = []
    if text.strip():
        parts.append(TextPart(text=text))
        wire.append({"type": "text", "text": text})
    for raw in attachments:
        block = _block(raw)
        parts.append(_part(block, prompt_caps))
        wire.append(block)
    if not parts:
        raise PromptRejected("an empty prompt was not sent")
    return ComposedPrompt(parts=parts, wire=wire)


def _block(raw: str) -> dict[str, Any]:
    try:
        block = json.loads(raw)
    except ValueError:
        raise PromptRejected("an attachment in the composer is not valid JSON; nothing was sent") from None
    if not isinstance(block, dict):
        raise PromptRejected("an attachment in the composer is not a content block; nothing was sent")
    return block


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
