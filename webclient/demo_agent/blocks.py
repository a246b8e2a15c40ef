"""ContentBlocks and suggestions as the JSON dicts that go on the wire."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp.helpers import image_block, resource_link_block, text_block
from pydantic import BaseModel

__all__ = ["JsonDict", "file_link", "image", "suggestion", "text", "to_json"]

JsonDict = dict[str, Any]


def to_json(model: BaseModel) -> JsonDict:
    """Serialise an SDK model exactly as ACP spells it (camelCase aliases, no nulls)."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def text(value: str) -> JsonDict:
    return to_json(text_block(value))


def file_link(path: Path, name: str) -> JsonDict:
    """A ``resource_link`` to a local file: ``file://`` URI of the absolute path, shown as ``name``."""
    return to_json(resource_link_block(name=name, uri=path.as_uri()))


def image(data_base64: str, mime_type: str) -> JsonDict:
    return to_json(image_block(data_base64, mime_type))


def suggestion(*blocks: JsonDict) -> JsonDict:
    """One entry of ``prompt_suggestions_update.suggestions``: the prompt a client would send unchanged."""
    return {"prompt": list(blocks)}
