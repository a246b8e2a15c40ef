"""A transcript entry's view model: which kind of entry it is, and what of the session its partial needs.

`templates/_item.html` renders a `Row` (as `row`) and picks the entry's partial by `row.kind`; the entry's
own partial reads the entry as `item` and the session's directory as `workspace`. A tool call's card
reads its terminals from the row, a permission request the card of the tool call it asks about.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, assert_never

from webclient.domain.items import (
    FileWriteItem,
    Item,
    MessageItem,
    NoticeItem,
    PermissionItem,
    TerminalView,
    ToolCallItem,
)
from webclient.domain.state import SessionState

Kind = Literal["message", "notice", "permission", "file_write", "tool_call"]


@dataclass(frozen=True)
class Row:
    """One transcript entry as its partial shows it."""

    kind: Kind
    item: Item
    workspace: str
    terminals: Mapping[str, TerminalView]  # a tool call's embedded terminals, by id
    card: ToolCallItem | None = None  # a permission request: the card of the tool call it asks about


@dataclass(frozen=True)
class TranscriptView:
    """The whole transcript (`_transcript.html`), for the page and a new tab's snapshot."""

    rows: tuple[Row, ...]


def kind_of(entry: Item) -> Kind:
    """The kind of a transcript entry, which names the partial that shows it."""
    match entry:
        case MessageItem():
            return "message"
        case NoticeItem():
            return "notice"
        case PermissionItem():
            return "permission"
        case FileWriteItem():
            return "file_write"
        case ToolCallItem():
            return "tool_call"
        case _:
            assert_never(entry)


def row(state: SessionState, entry: Item) -> Row:
    """`entry` of `state`'s transcript as its partial shows it."""
    kind = kind_of(entry)
    card = state.tool_card(entry.tool_call.tool_call_id) if isinstance(entry, PermissionItem) else None
    return Row(kind, entry, state.workspace, state.terminals, card)


def transcript(state: SessionState) -> TranscriptView:
    return TranscriptView(tuple(row(state, entry) for entry in state.items))
