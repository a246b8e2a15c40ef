"""Content: the blocks of a message or a prompt, as our parts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from webclient.acp.models.base import Model


class TextPart(Model):
    kind: Literal["text"] = "text"
    text: str


class ImagePart(Model):
    kind: Literal["image"] = "image"
    mime_type: str
    data: str
    uri: str | None = None


class AudioPart(Model):
    kind: Literal["audio"] = "audio"
    mime_type: str
    data: str


class ResourceLinkPart(Model):
    kind: Literal["resource_link"] = "resource_link"
    name: str
    uri: str
    title: str | None = None
    mime_type: str | None = None
    size: int | None = None


class ResourcePart(Model):
    """An embedded resource: its contents travel inside the message."""

    kind: Literal["resource"] = "resource"
    uri: str
    mime_type: str | None = None
    text: str | None = None
    blob: str | None = None


ContentPart = TextPart | ImagePart | AudioPart | ResourceLinkPart | ResourcePart


@dataclass(frozen=True)
class PromptBlock:
    """One block of a prompt we send: our part, and, for a block an agent wrote (a suggestion's), that
    block exactly as it came (`_meta` and annotations included), since the RFD wants it sent back
    deep-equal. Only the agent layer reads `original`; everyone else sees `part`."""

    part: ContentPart
    original: Mapping[str, Any] | None = None


# Image types a browser renders without running code (no SVG: it can carry script).
DISPLAYABLE_IMAGE_TYPES = frozenset(
    {"image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp"}
)
