"""CardDeltas: a tab is sent what a card it has gained; once it was sent appended output the card goes
out whole a moment later (or in the next frame, when something else of it changed too); stopping cancels
what is due."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

import pytest

from tests.support.polling import eventually
from webclient.acp.models import TerminalStream, ToolCallContent, ToolCallEvent
from webclient.domain.items import Item
from webclient.domain.state import SessionState
from webclient.views import card_deltas
from webclient.views.card_deltas import CardDeltas
from webclient.views.card_stream import output_id
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
