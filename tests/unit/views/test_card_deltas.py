"""CardDeltas: a tab is sent what a card it has gained; once it was sent appended output the card goes
out whole a moment later (or in the next frame, when something else of it changed too); stopping cancels
what is due."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator
from typing import SupportsIndex, overload

import pytest

from tests.support.polling import eventually
from webclient.acp.models import TerminalStream, TextPart, ToolCallContent, ToolCallEvent
from webclient.domain.items import Item, ToolCallItem
from webclient.domain.state import SessionState
from webclient.views import card_deltas, card_stream
from webclient.views.card_deltas import CardDeltas
from webclient.views.card_stream import output_id
from webclient.views.live import LiveHub
from webclient.views.tab_view import TabView

TOOL = "run-1"


class Marks:
    def __init__(self) -> None:
        self.keys: list[str] = []

    def __call__(self, keys: Iterable[str]) -> None:
        self.keys.extend(keys)


def running(state: SessionState) -> Item:
    """A command's card, with the terminal its output streams into, shown whole to a tab."""
    terminal = ToolCallContent(kind="terminal", terminal_id=TOOL)
    state.apply(
        ToolCallEvent(
            tool_call_id=TOOL, is_update=False, title="Run", status="in_progress", content=(terminal,)
        )
    )
    wrote(state, "one\n")
    return state.items[-1]


def wrote(state: SessionState, data: str, status: str | None = None) -> Item:
    stream = TerminalStream(terminal_id=TOOL, data=data)
    state.apply(ToolCallEvent(tool_call_id=TOOL, is_update=True, status=status, terminal_stream=stream))
    return state.items[-1]


def tab_showing(deltas: CardDeltas, state: SessionState, card: Item) -> TabView:
    tab = TabView()
    tab.known_items.add(card.id)
    deltas.frame(state, {card.id}, now=0.0).whole(card, tab)
    return tab


async def test_output_is_appended_and_the_card_goes_out_whole_a_moment_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(card_deltas, "SETTLE_AFTER", 0.0)
    marks = Marks()
    state, deltas = SessionState(session_id="s-1"), CardDeltas(marks)
    card = running(state)
    tab, fresh = tab_showing(deltas, state, card), TabView()
    card = wrote(state, "two\n")
    frame = deltas.frame(state, {card.id}, now=0.0)
    sent = frame.delta(card, tab)
    assert sent is not None and f"beforeend:#{output_id(card.id, 0)}" in sent and "two" in sent
    assert frame.delta(card, fresh) is None  # a tab without the card gets it whole
    frame.sent([card], [tab])
    await eventually(lambda: marks.keys == [card.id], timeout=30, what="the card to be due whole")
    assert deltas.frame(state, {card.id}, now=0.0).delta(card, tab) is None  # this frame: the card whole


async def test_a_card_is_rendered_whole_once_its_output_pauses_not_while_it_streams(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Rendered whole every SETTLE_AFTER while a command wrote, a card cost the server and every page the
    # output it shows (up to 64 KB) twice a second, whatever its chunks.
    clock = [1000.0]
    monkeypatch.setattr(asyncio.get_running_loop(), "time", lambda: clock[0])  # the loop's timers too
    marks = Marks()
    state, deltas = SessionState(session_id="s-1"), CardDeltas(marks)
    card = running(state)
    tab = tab_showing(deltas, state, card)

    async def later(seconds: float) -> None:
        clock[0] += seconds
        for _ in range(3):
            await asyncio.sleep(0)  # loop turns, no waiting: a timer due by now has had its turn

    for n in range(6):  # a line every 0.6 SETTLE_AFTER, for 3.6 SETTLE_AFTER
        card = wrote(state, f"line {n}\n")
        frame = deltas.frame(state, {card.id}, now=clock[0])
        sent = frame.delta(card, tab)
        assert sent is not None and f"beforeend:#{output_id(card.id, 0)}" in sent
        frame.sent([card], [tab])
        await later(0.6 * card_stream.SETTLE_AFTER)
    assert marks.keys == []
    await later(0.5 * card_stream.SETTLE_AFTER)  # the output paused
    assert marks.keys == [card.id]
    await deltas.stop()


async def test_what_a_card_gained_as_it_completed_goes_first_and_the_card_whole_next() -> None:
    marks = Marks()
    state, deltas = SessionState(session_id="s-1"), CardDeltas(marks)
    card = running(state)
    tab = tab_showing(deltas, state, card)
    card = wrote(state, "last\n", status="completed")
    frame = deltas.frame(state, {card.id}, now=0.0)
    ahead = frame.delta(card, tab)
    assert ahead is not None and "last" in ahead
    frame.sent([card], [tab])
    assert marks.keys == [card.id]  # asked for at once
    assert deltas.frame(state, {card.id}, now=0.0).delta(card, tab) is None
    await deltas.stop()


async def test_stop_cancels_a_whole_render_that_is_due(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(card_deltas, "SETTLE_AFTER", 0.0)
    marks = Marks()
    state, deltas = SessionState(session_id="s-1"), CardDeltas(marks)
    card = running(state)
    tab = tab_showing(deltas, state, card)
    card = wrote(state, "two\n")
    frame = deltas.frame(state, {card.id}, now=0.0)
    frame.delta(card, tab)
    frame.sent([card], [tab])
    await deltas.stop()
    for _ in range(3):
        await asyncio.sleep(0)  # loop turns, no waiting: the timer's turn has passed
    assert marks.keys == []


class CountedContent(list[ToolCallContent]):
    """A card's content that counts the entries read from it (walked, or sliced out)."""

    read = 0

    def __iter__(self) -> Iterator[ToolCallContent]:
        for entry in super().__iter__():
            CountedContent.read += 1
            yield entry

    @overload
    def __getitem__(self, index: SupportsIndex) -> ToolCallContent: ...
    @overload
    def __getitem__(self, index: slice) -> list[ToolCallContent]: ...
    def __getitem__(self, index: SupportsIndex | slice) -> ToolCallContent | list[ToolCallContent]:
        found = super().__getitem__(index)
        CountedContent.read += len(found) if isinstance(found, list) else 1
        return found


def entries_read_by_appends(had: int, appends: int) -> int:
    """The entries of a card's content read while `appends` entries are added one at a time to a card of
    `had`, each applied to the state and sent to a tab that shows the card."""
    hub = LiveHub(SessionState(session_id="s-1"), interval=3600)
    sub = hub.subscribe()

    def entry(n: int) -> ToolCallEvent:
        piece = ToolCallContent(kind="content", content=TextPart(text=f"line {n}"))
        return ToolCallEvent(tool_call_id=TOOL, is_update=True, appended=(piece,))

    hub.mark(
        hub.state.apply(ToolCallEvent(tool_call_id=TOOL, is_update=False, title="Read", status="in_progress"))
    )
    for n in range(had):
        hub.state.apply(entry(n))
    hub.flush()
    card = hub.state.items[-1]
    assert isinstance(card, ToolCallItem)
    counted = card.content = CountedContent(card.content)
    CountedContent.read = 0
    for n in range(had, had + appends):
        hub.mark(hub.state.apply(entry(n)))
        hub.flush()
    frames = [frame for frame in (sub.frames.get_nowait() for _ in range(sub.frames.qsize())) if frame]
    assert card.content is counted and len(counted) == had + appends  # added to, not made anew
    assert f"line {had + appends - 1}" in frames[-1] and 'hx-swap-oob="beforeend:' in frames[-1]
    return CountedContent.read


async def test_an_entry_added_to_a_tool_calls_content_costs_the_same_however_long_the_content() -> None:
    # A content of 20,000 entries made a chunk cost 1.8 times as much at its end as at its start: each
    # entry copied the content whole.
    assert entries_read_by_appends(2_000, 20) == entries_read_by_appends(20, 20)
