"""One frame's rendering of transcript entries for the live hub: each entry rendered at most once per
variant, however many tabs the frame goes to."""

from __future__ import annotations

from webclient.domain.items import Item, ToolCallItem
from webclient.domain.state import SessionState
from webclient.views import render
from webclient.views.card_stream import CardShown, card_ahead, card_append, card_shown
from webclient.views.markdown_stream import answer_text, finished_end
from webclient.views.streamed import Stream, StreamFrame
from webclient.views.subscriber import Subscriber


class Rendered:
    """One frame's rendering of transcript entries: each entry rendered at most once per variant.

    Every tab that has an answer up to the same point shares one rendering of what changed since.
    """

    def __init__(
        self, state: SessionState, streams: dict[str, Stream], now: float, settle: set[str], ahead: set[str]
    ) -> None:
        self._state = state
        self._ahead = ahead  # cards sent what they gained ahead: to render whole in the next frame
        self._streams = streams
        self._now = now
        self._settle = settle
        self._html: dict[tuple[str, bool], str] = {}
        self._changes: dict[str, StreamFrame] = {}
        self._ends: dict[str, int] = {}

    def streamed_text(self, entry: Item) -> str | None:
        """`markdown_stream.streamed_text`, reading each piece of a growing answer once."""
        text = answer_text(entry)
        if text is None:
            return None
        return None if self._stream(entry.id).references.found(text) else text

    def stream(self, entry_id: str, text: str) -> StreamFrame:
        """This frame's change of a streamed answer, shared by every tab that has it."""
        change = self._changes.get(entry_id)
        if change is None:
            change = self._changes[entry_id] = StreamFrame(entry_id, text, self._stream(entry_id), self._now)
        return change

    def _stream(self, entry_id: str) -> Stream:
        stream = self._streams.get(entry_id)
        if stream is None:
            stream = self._streams[entry_id] = Stream()
            stream.off_loop = True  # the hub renders its long tail on a worker thread
        return stream

    def finished_end(self, entry_id: str, text: str) -> int:
        """Where the full rendering of this answer (in this frame) split it."""
        end = self._ends.get(entry_id)
        if end is None:
            end = self._ends[entry_id] = finished_end(text)
        return end

    def card_append(self, entry: ToolCallItem, shown: CardShown | None) -> tuple[str, CardShown] | None:
        """`card_stream.card_append`, unless the card is due to be rendered whole for this tab."""
        if shown is not None and shown.raw and entry.id in self._settle:
            return None
        return card_append(entry, self._state.terminals, shown, lambda start: self._added(entry, start))

    def card_ahead(self, entry: ToolCallItem, shown: CardShown | None) -> str | None:
        """`card_stream.card_ahead`, noting the card for a whole render in the next frame; None when this
        frame is the one that renders it whole."""
        if entry.id in self._settle:
            return None
        ahead = card_ahead(entry, self._state.terminals, shown, lambda start: self._added(entry, start))
        if ahead is not None:
            self._ahead.add(entry.id)
        return ahead

    def _added(self, entry: ToolCallItem, start: int) -> str:
        key = (f"{entry.id}+{start}", True)
        html = self._html.get(key)
        if html is None:
            html = self._html[key] = render.tool_content_added(self._state, entry, start)
        return html

    def note_card(self, sub: Subscriber, entry: ToolCallItem) -> None:
        """The tab was sent the card whole: what it shows of it now."""
        shown = card_shown(entry, self._state.terminals)
        if shown is None:
            sub.cards.pop(entry.id, None)
        else:
            sub.cards[entry.id] = shown

    def item(self, entry: Item, *, oob: bool) -> str:
        key = (entry.id, oob)
        html = self._html.get(key)
        if html is None:
            html = self._html[key] = render.item(self._state, entry, oob=oob)
        return html
