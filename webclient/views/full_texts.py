"""The whole texts of what a session shows cut (a side of a change, a suggestion), for their download."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from webclient.acp.models import TextPart, ToolCallContent
from webclient.domain.items import FileWriteItem, PermissionItem, ToolCallItem
from webclient.domain.state import SessionState
from webclient.views.diff import find_text


def full_text(state: SessionState, key: str) -> str | None:
    """The text that `key` (`diff.text_key`) names in this session, if it still shows it."""
    return find_text(_texts(state), key)


def _texts(state: SessionState) -> Iterator[str | None]:
    for suggestion in state.suggestions:
        yield "".join(p.text for p in suggestion.parts if isinstance(p, TextPart))
    for item in state.items:
        if isinstance(item, FileWriteItem):
            yield item.old_text
            yield item.new_text
        elif isinstance(item, ToolCallItem):
            yield from _content_texts(item.content)
        elif isinstance(item, PermissionItem):
            yield from _content_texts(item.tool_call.content or ())


def _content_texts(content: Iterable[ToolCallContent]) -> Iterator[str | None]:
    for entry in content:
        if entry.kind == "diff":
            yield entry.old_text
            yield entry.new_text
            yield entry.patch
