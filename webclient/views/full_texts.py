"""The whole texts of what a session shows cut (a side of a change, a suggestion, a huge user message),
for their download."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from webclient.acp.models import TextPart, ToolCallContent
from webclient.domain.items import FileWriteItem, MessageItem, PermissionItem, ToolCallItem
from webclient.domain.state import SessionState
from webclient.views.diff import find_text, text_key

# A user message shows at most this many characters of a text: what one prompt may hold is 200,000 in
# all, and an agent may send a user message of any size (a replay): 5 MB in one paragraph took the
# browser seconds to lay out at every page load.
USER_TEXT_SHOWN = 100_000


@dataclass(frozen=True)
class ShownText:
    """The start of a text that the page shows, how many characters it leaves out, and the key of the
    whole text's download (`diff.text_key`) when it leaves any out."""

    text: str
    unshown: int = 0
    key: str = ""


def shown_text(text: str, limit: int = USER_TEXT_SHOWN) -> ShownText:
    """`text` cut to `limit` characters for the page, with what the cut leaves out."""
    if len(text) <= limit:
        return ShownText(text)
    return ShownText(text[:limit], unshown=len(text) - limit, key=text_key(text))


def full_text(state: SessionState, key: str) -> str | None:
    """The text that `key` (`diff.text_key`) names in this session, if it still shows it."""
    return find_text(_texts(state), key)


def _texts(state: SessionState) -> Iterator[str | None]:
    for suggestion in state.suggestions:
        yield "".join(p.text for p in suggestion.parts if isinstance(p, TextPart))
    for item in state.items:
        if isinstance(item, MessageItem) and item.role == "user":
            yield from (
                p.text for p in item.parts if isinstance(p, TextPart) and len(p.text) > USER_TEXT_SHOWN
            )
        elif isinstance(item, FileWriteItem):
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
