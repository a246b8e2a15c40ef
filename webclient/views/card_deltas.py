"""The live frames of tool cards that grow (`card_stream.py` says what a frame of one card is): the
renderer of their deltas, and the timers that render a card whole once its tabs were sent appended text."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from functools import partial

from webclient.domain.items import Item, ToolCallItem
from webclient.domain.state import SessionState
from webclient.views import render
from webclient.views.card_stream import SETTLE_AFTER, CardShown, card_ahead, card_append, card_shown
from webclient.views.tab_view import TabView


class CardDeltas:
    """The cards whose terminal output or content some tab was sent as appended, due to be rendered whole."""

    def __init__(self, mark: Callable[[Iterable[str]], None]) -> None:
        self._mark = mark
        self._settle_timers: dict[str, asyncio.TimerHandle] = {}
        self._appended_at: dict[str, float] = {}  # when a card's tabs were last sent appended output
        self._settling: set[str] = set()

    def work(self, entry: Item, now: float) -> int | None:
        return None  # a card weighs what it carries (`weight.text_size`)

    def markdown_work(self, entry: Item, now: float) -> int:
        return 0

    def frame(self, state: SessionState, dirty: set[str], now: float) -> CardFrame:
        """The cards due to be rendered whole that changed leave the settling set: this frame renders them."""
        settle, self._settling = self._settling & dirty, self._settling - dirty
        return CardFrame(self, state, settle)

    async def stop(self) -> None:
        for timer in self._settle_timers.values():
            timer.cancel()
        self._settle_timers.clear()
        self._appended_at.clear()

    def settle(self, ahead: set[str]) -> None:
        """These cards were sent what they gained ahead: each goes out whole in the next frame."""
        self._settling |= ahead
        self._mark(ahead)

    def schedule_settles(self, entries: list[Item], tabs: list[TabView]) -> None:
        """A card whose tabs were sent appended output is rendered whole (the exact markup) once its output
        pauses for `SETTLE_AFTER`. Rendered whole every `SETTLE_AFTER` while a command kept writing, its
        card cost the server and every page the whole output shown (up to 64 KB) twice a second, whatever
        the chunks; while it writes, `card_append` renders it whole once a tab was sent `SHOWN_CHARS`."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        for entry in entries:
            if not isinstance(entry, ToolCallItem):
                continue
            if not any((c := tab.cards.get(entry.id)) is not None and c.raw for tab in tabs):
                continue
            self._appended_at[entry.id] = now
            if entry.id not in self._settle_timers:
                self._settle_timers[entry.id] = loop.call_at(now + SETTLE_AFTER, self._settle_due, entry.id)

    def _settle_due(self, entry_id: str) -> None:
        del self._settle_timers[entry_id]
        loop = asyncio.get_running_loop()
        quiet_from = self._appended_at.get(entry_id, -float("inf")) + SETTLE_AFTER
        if loop.time() < quiet_from:  # still writing: once it pauses
            self._settle_timers[entry_id] = loop.call_at(quiet_from, self._settle_due, entry_id)
            return
        self._appended_at.pop(entry_id, None)
        self._settling.add(entry_id)
        self._mark([entry_id])


class CardFrame:
    """One frame of the growing cards: what each gained rendered once, however many tabs it goes to."""

    def __init__(self, owner: CardDeltas, state: SessionState, settle: set[str]) -> None:
        self._owner = owner
        self._state = state
        self._settle = settle  # cards to render whole for a tab that was sent appended output
        self._ahead: set[str] = set()  # filled as it renders: cards to render whole in the next frame
        self._added: dict[tuple[str, int], str] = {}

    def delta(self, entry: Item, tab: TabView) -> str | None:
        """What a card the tab has gained, to append to it; None: the card whole."""
        if not isinstance(entry, ToolCallItem) or entry.id not in tab.known_items:
            return None
        shown = tab.cards.get(entry.id)
        appended = self._append(entry, shown)
        if appended is not None:  # only its content and its terminals' output grew: what was added
            frame, tab.cards[entry.id] = appended
            return frame
        # Something else changed too: what it gained now, the card whole in the next frame.
        return self._ahead_of(entry, shown)

    def whole(self, entry: Item, tab: TabView) -> None:
        if not isinstance(entry, ToolCallItem):
            return
        shown = card_shown(entry, self._state.terminals)
        if shown is None:
            tab.cards.pop(entry.id, None)
        else:
            tab.cards[entry.id] = shown

    def ahead(self, entry: Item, tab: TabView) -> str | None:
        return None  # a card sends what it gained ahead in its own frame (`_ahead_of`)

    def sent(self, entries: list[Item], tabs: list[TabView]) -> None:
        if self._ahead:
            self._owner.settle(self._ahead)
        self._owner.schedule_settles(entries, tabs)

    def _append(self, entry: ToolCallItem, shown: CardShown | None) -> tuple[str, CardShown] | None:
        """`card_stream.card_append`, unless the card is due to be rendered whole for this tab."""
        if shown is not None and shown.raw and entry.id in self._settle:
            return None
        return card_append(entry, self._state.terminals, shown, partial(self._entries_added, entry))

    def _ahead_of(self, entry: ToolCallItem, shown: CardShown | None) -> str | None:
        """`card_stream.card_ahead`, noting the card for a whole render in the next frame; None when this
        frame is the one that renders it whole."""
        if entry.id in self._settle:
            return None
        ahead = card_ahead(entry, self._state.terminals, shown, partial(self._entries_added, entry))
        if ahead is not None:
            self._ahead.add(entry.id)
        return ahead

    def _entries_added(self, entry: ToolCallItem, start: int) -> str:
        key = (entry.id, start)
        html = self._added.get(key)
        if html is None:
            html = self._added[key] = render.tool_content_added(self._state, entry, start)
        return html
