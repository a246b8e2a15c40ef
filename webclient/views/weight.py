"""How much text a frame has to render, so that a heavy frame is rendered off the event loop.

Rendering costs in proportion to the text an entry carries (Markdown, escaping, the copies Jinja and
markupsafe make): about 60 ms per megabyte on this project's reference machine, all of it on the loop
that serves every tab. A frame whose entries carry more than `OFF_LOOP_CHARS` is rendered on a worker
thread instead (`LiveHub`), so one huge chunk, tool update or diff never holds the other tabs up. The
size is read without rendering anything: lengths only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from webclient.acp.models import Suggestion, TextPart, ToolCallContent, ToolCallEvent
from webclient.domain.items import (
    FileWriteItem,
    Item,
    MessageItem,
    PermissionItem,
    TerminalView,
    ToolCallItem,
)
from webclient.views.terminal import SHOWN_CHARS

OFF_LOOP_CHARS = 200_000
# A suggestion's text is rendered several times (the chip, its folded and full label, the ghost text, the
# data the scripts read) with a scan for hidden characters each time: a list of 50 of 600 characters took
# 20 to 40 ms, some 20 times what a message's text of that length costs.
SUGGESTION_COST = 20


def text_size(entry: Item, terminals: Mapping[str, TerminalView]) -> int:
    """The characters of text rendering `entry` whole reads (an estimate from lengths alone)."""
    match entry:
        case MessageItem():
            return sum(len(part.text) for part in entry.parts if isinstance(part, TextPart))
        case ToolCallItem():
            return _card_size(entry, terminals)
        case PermissionItem():
            return _event_size(entry.tool_call, terminals)
        case FileWriteItem():
            return len(entry.new_text) + len(entry.old_text or "")
        case _:
            return 0


def suggestions_size(suggestions: Iterable[Suggestion]) -> int:
    """What rendering the suggestion list costs, in characters of message text."""
    texts = (part for suggestion in suggestions for part in suggestion.parts if isinstance(part, TextPart))
    return SUGGESTION_COST * sum(len(part.text) for part in texts)


def heavy(sizes: Iterable[int]) -> bool:
    """Whether a frame that renders text of these sizes belongs off the event loop."""
    return sum(sizes) > OFF_LOOP_CHARS


# Per card (by id): its content's epoch and length when last weighed, the text its entries carry, and the
# terminals among them. A card whose content gains an entry at a time is weighed by what it gained: its
# whole content at each frame cost every frame its length. Forgotten all at once past `_KEPT_SIZES`.
_sizes: dict[str, tuple[int, int, int, tuple[str, ...]]] = {}
_KEPT_SIZES = 256


def _card_size(item: ToolCallItem, terminals: Mapping[str, TerminalView]) -> int:
    epoch, count, size, terminal_ids = _sizes.get(item.id, (item.content_epoch, 0, 0, ()))
    if epoch != item.content_epoch or count > len(item.content):
        count, size, terminal_ids = 0, 0, ()
    added = item.content[count:]
    size += _content_size(added, {})
    terminal_ids += tuple(entry.terminal_id for entry in added if entry.terminal_id is not None)
    if len(_sizes) >= _KEPT_SIZES and item.id not in _sizes:
        _sizes.clear()
    _sizes[item.id] = (item.content_epoch, len(item.content), size, terminal_ids)
    shown = (terminals.get(terminal_id) for terminal_id in terminal_ids)
    return size + sum(min(view.length, 2 * SHOWN_CHARS) for view in shown if view is not None)


def _event_size(event: ToolCallEvent, terminals: Mapping[str, TerminalView]) -> int:
    return _content_size(event.content or (), terminals)


def _content_size(content: Iterable[ToolCallContent], terminals: Mapping[str, TerminalView]) -> int:
    size = 0
    for entry in content:
        if isinstance(entry.content, TextPart):
            size += len(entry.content.text)
        size += len(entry.old_text or "") + len(entry.new_text or "") + len(entry.patch or "")
        if entry.terminal_id is not None and (view := terminals.get(entry.terminal_id)) is not None:
            size += min(view.length, 2 * SHOWN_CHARS)  # all a card reads of it (`terminal_text`)
    return size
