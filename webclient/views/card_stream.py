"""A tool card that grows: what arrived is appended, the whole card at a bounded rate.

A command's output streams into its card a line at a time (output an agent streams in `_meta`, an ACP v2
display terminal's chunks, a client terminal's reads), and an ACP v2 agent may add to a tool call's content
an entry at a time (`tool_call_content_chunk`). Rendering the card again for each piece costs the server
and every tab the whole card per piece, and the page swaps the whole card. Instead, while nothing of the
card changed but its content gaining entries and its terminals' output growing, a tab is sent the entries
added, rendered as the card renders them and appended to its content, and the text added to an output,
escaped, appended to the output's `<pre>`. The card is rendered whole again
when anything else of it changes, once a tab has been sent `SHOWN_CHARS` this way (so the page keeps
showing about the tail the full render shows), and once its output pauses for `SETTLE_AFTER` (which
its owner, `CardDeltas`, schedules), so a tab ends with the same markup the full page and a new tab's
snapshot show. Output with control sequences or carriage returns (colours, a progress bar) is not
appended: its card is rendered whole, as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from markupsafe import escape

from webclient.domain.items import TerminalView, ToolCallItem
from webclient.views.terminal import SHOWN_CHARS

# How long a card's output must pause before its tabs get the card rendered whole (the exact markup).
SETTLE_AFTER = 0.5
# Looked at before the added text, for an escape sequence or a carriage return the addition may complete.
_CONTEXT = 256
_NOT_PLAIN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x9b]")  # a control, an escape or a carriage return


@dataclass(frozen=True)
class CardShown:
    """What one tab shows of one card: the card as last rendered whole, how many entries of its content,
    and each of its terminals' output up to where (epoch, length); `raw`: characters appended since."""

    shell: tuple[object, ...]
    entries: int
    terminals: tuple[int, ...]  # where in the content its terminals are
    outputs: tuple[tuple[int, int] | None, ...]
    raw: int = 0


def card_shown(item: ToolCallItem, terminals: Mapping[str, TerminalView]) -> CardShown | None:
    """What a tab shows of `item` once it is sent the card whole (None: nothing of it will be appended to,
    as it has ended and has no terminal: a tab keeps no record of the many cards of a long session)."""
    at = tuple(i for i, entry in enumerate(item.content) if entry.kind == "terminal" and entry.terminal_id)
    views = _views(item, terminals, at)
    live = (item.status or "pending") in ("pending", "in_progress") and not item.unfinished
    if not live and not any(view is not None for _, view in views):
        return None
    outputs = tuple(_output(view) for _, view in views)
    return CardShown(_shell(item, views), len(item.content), at, outputs)


def card_append(
    item: ToolCallItem,
    terminals: Mapping[str, TerminalView],
    shown: CardShown | None,
    entries_added: Callable[[int], str],
) -> tuple[str, CardShown] | None:
    """What a tab showing `shown` of `item` is sent when its content only gained entries and its
    terminals' output only grew, and what it shows then; None when the card must be rendered whole.
    `entries_added(start)`: the frame that appends the content's entries from `start` on."""
    if shown is None or len(item.content) < shown.entries:
        return None
    views = _views(item, terminals, shown.terminals)
    if _shell(item, views) != shown.shell:
        return None
    parts: list[str] = []
    if len(item.content) > shown.entries:
        new = item.content[shown.entries :]
        if shown.entries == 0 or any(entry.kind == "terminal" for entry in new):
            return None  # no content shown yet, or a terminal added: the card whole
        parts.append(entries_added(shown.entries))
    grown = _outputs_added(item.id, views, shown, parts)
    if grown is None:
        return None
    outputs, raw = grown
    if raw > SHOWN_CHARS:
        return None  # the page would show far more than the card does: render it whole, the tail again
    return "".join(parts), CardShown(shown.shell, len(item.content), shown.terminals, outputs, raw)


def card_ahead(
    item: ToolCallItem,
    terminals: Mapping[str, TerminalView],
    shown: CardShown | None,
    entries_added: Callable[[int], str],
) -> str | None:
    """What `item` gained since `shown` (entries of its content, its terminals' output), as `card_append`
    sends it, when its content was not replaced but something else of it changed too (the call completed
    with its last lines): sent ahead of the card rendered whole, which its caller sends a frame later, so
    what arrived last does not wait for that render. None: nothing to send ahead."""
    if shown is None or item.content_epoch != shown.shell[_CONTENT_EPOCH]:
        return None
    views = _views(item, terminals, shown.terminals) if len(item.content) >= shown.entries else None
    if views is None:
        return None
    now = CardShown(_shell(item, views), shown.entries, shown.terminals, shown.outputs, shown.raw)
    appended = card_append(item, terminals, now, entries_added)
    return appended[0] if appended is not None and appended[0] else None


Outputs = tuple[tuple[int, int] | None, ...]


def _outputs_added(
    item_id: str, views: Views, shown: CardShown, parts: list[str]
) -> tuple[Outputs, int] | None:
    """Each terminal's output the tab does not show yet, appended to `parts` as frames; what the tab shows
    then, and the raw characters it was sent since the card was last whole. None: the card whole."""
    outputs: list[tuple[int, int] | None] = []
    raw = shown.raw
    for (index, view), had in zip(views, shown.outputs, strict=True):
        now = _output(view)
        if view is None or had is None or now is None:
            if had != now:
                return None
            outputs.append(now)
            continue
        epoch, upto = had
        if view.epoch != epoch or view.length < upto or upto == 0:
            return None  # replaced, cut, or no `<pre>` yet: the card whole
        if view.length > upto:
            start = max(0, upto - _CONTEXT)  # read what was added and what it may continue, no more
            added = appended_text(view.since(start), upto - start)
            if added is None:
                return None
            raw += len(added)
            into = escape(output_id(item_id, index))
            parts.append(f'<div hx-swap-oob="beforeend:#{into}">{escape(added)}</div>')
        outputs.append(now)
    return tuple(outputs), raw


def appended_text(output: str, start: int) -> str | None:
    """The text `output` gained after `start`, as a card shows it; None when it cannot simply be added to
    what the card shows (it holds control sequences or carriage returns, or completes one before it)."""
    added = output[start:].replace("\r\n", "\n")
    before = output[max(0, start - _CONTEXT) : start]
    if _NOT_PLAIN.search(added) or before.endswith("\r") or "\x1b" in before or "\x9b" in before:
        return None
    return added


def output_id(item_id: str, index: int) -> str:
    """The id of the `<pre>` that shows the output of the terminal at `index` of a card's content."""
    return f"{item_id}-out-{index}"


Views = list[tuple[int, TerminalView | None]]  # each terminal of a card: its place in the content, its view


def _views(item: ToolCallItem, terminals: Mapping[str, TerminalView], at: tuple[int, ...]) -> Views:
    """The terminals at these places of the card's content (its content not replaced since they were)."""
    return [(index, terminals.get(item.content[index].terminal_id or "")) for index in at]


def _output(view: TerminalView | None) -> tuple[int, int] | None:
    return None if view is None else (view.epoch, view.length)


_CONTENT_EPOCH = 3  # where `_shell` has the content's epoch


def _shell(item: ToolCallItem, views: Views) -> tuple[object, ...]:
    """Everything the card shows but the entries added to its content and its terminals' output. Compared
    as a tuple, which takes the same object as equal at once."""
    terms = tuple(
        None if view is None else (view, view.truncated, view.exit, view.command, view.cancellable)
        for _, view in views
    )
    return (
        item.title,
        item.kind,
        item.status,
        item.content_epoch,
        item.locations,
        item.raw_input,
        item.raw_output,
        item.cancellable,
        item.unfinished,
        terms,
    )
