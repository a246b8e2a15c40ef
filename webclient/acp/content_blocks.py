"""ACP `ContentBlock`s and our content parts, both ways (the same blocks in v1 and v2).

`translate_content` validates a block with the SDK's schema models and maps it to our part;
`content_to_wire` and `prompt_to_wire` build what `session/prompt` sends. Nothing here raises on agent
input except `translate_content`, whose ValueError says why a block is invalid.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from acp import schema
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from webclient.acp.models import (
    AudioPart,
    ContentPart,
    ImagePart,
    PromptBlock,
    ResourceLinkPart,
    ResourcePart,
    TextPart,
)


def translate_content(block: Any) -> ContentPart:
    """Map one ContentBlock (raw dict or SDK model) to our content part; raises ValueError if invalid."""
    if isinstance(block, BaseModel):
        block = block.model_dump(mode="json", by_alias=True, exclude_none=True)
    try:
        model = _CONTENT_ADAPTER.validate_python(block)
    except ValidationError as exc:
        raise ValueError(short_error(exc)) from exc
    return content_from_model(model)


def content_to_wire(part: ContentPart) -> dict[str, Any]:
    """The ContentBlock dict for one of our parts, as `session/prompt` takes it."""
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, ImagePart):
        return _without_none(
            {"type": "image", "mimeType": part.mime_type, "data": part.data, "uri": part.uri}
        )
    if isinstance(part, AudioPart):
        return {"type": "audio", "mimeType": part.mime_type, "data": part.data}
    if isinstance(part, ResourceLinkPart):
        return _without_none(
            {
                "type": "resource_link",
                "name": part.name,
                "uri": part.uri,
                "title": part.title,
                "mimeType": part.mime_type,
                "size": part.size,
            }
        )
    resource = _without_none(
        {"uri": part.uri, "mimeType": part.mime_type, "text": part.text, "blob": part.blob}
    )
    return {"type": "resource", "resource": resource}


def prompt_to_wire(blocks: Sequence[PromptBlock]) -> list[dict[str, Any]]:
    """The `prompt` of `session/prompt` (v1 and v2 alike): each block as the agent wrote it when it
    did, else the ContentBlock for its part."""
    return [dict(b.original) if b.original is not None else content_to_wire(b.part) for b in blocks]


_CONTENT_BLOCK = Annotated[
    schema.TextContentBlock
    | schema.ImageContentBlock
    | schema.AudioContentBlock
    | schema.ResourceContentBlock
    | schema.EmbeddedResourceContentBlock,
    Field(discriminator="type"),
]
_CONTENT_ADAPTER: TypeAdapter[Any] = TypeAdapter(_CONTENT_BLOCK)


def content_from_model(model: Any) -> ContentPart:
    """One SDK content-block model as our part; ValueError for a kind we do not know."""
    if isinstance(model, schema.TextContentBlock):
        return TextPart(text=model.text)
    if isinstance(model, schema.ImageContentBlock):
        return ImagePart(mime_type=model.mime_type, data=model.data, uri=model.uri)
    if isinstance(model, schema.AudioContentBlock):
        return AudioPart(mime_type=model.mime_type, data=model.data)
    if isinstance(model, schema.ResourceContentBlock):
        return ResourceLinkPart(
            name=model.name, uri=model.uri, title=model.title, mime_type=model.mime_type, size=model.size
        )
    if isinstance(model, schema.EmbeddedResourceContentBlock):
        res = model.resource
        return ResourcePart(
            uri=res.uri,
            mime_type=res.mime_type,
            text=getattr(res, "text", None),
            blob=getattr(res, "blob", None),
        )
    raise ValueError(f"unsupported content block {type(model).__name__}")


def short_error(exc: Exception) -> str:
    """What is wrong with a block or an update, in a few words (a validation error's first five)."""
    if isinstance(exc, ValidationError):
        parts = [f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()[:5]]
        return "; ".join(parts)
    return str(exc)


def _without_none(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}
