"""TextDeltas: a tab is sent what arrived of an answer it has; a long tail it shows raw is rendered off
the loop when due, and a frame is asked for then; stopping cancels what is due."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from tests.support.polling import eventually
from webclient.acp.models import MessageChunk, TextPart
from webclient.domain.items import Item
from webclient.domain.state import SessionState
from webclient.views.streamed import SHORT_TAIL, Shown
from webclient.views.tab_view import TabView
from webclient.views.text_deltas import TextDeltas


class Marks:
    def __init__(self) -> None:
        self.keys: list[str] = []

    def __call__(self, keys: Iterable[str]) -> None:
        self.keys.extend(keys)


def says(state: SessionState, text: str) -> Item:
    state.apply(MessageChunk(role="agent", content=TextPart(text=text)))
    return state.items[-1]


async def test_a_tab_that_has_the_answer_is_sent_what_arrived_and_one_without_it_the_answer_whole() -> None:
    state, deltas = SessionState(session_id="s-1"), TextDeltas(Marks())
    entry = says(state, "Hello.\n\nThere")
    having, fresh = TabView(), TabView()
    having.shows(state)
    entry = says(state, ", friend")
    frame = deltas.frame(state, {entry.id}, now=0.0)
    sent = frame.delta(entry, having)
    assert sent is not None and "There, friend" in sent and "Hello" not in sent
    assert having.streamed[entry.id] == Shown(len("Hello.\n\n"), len("Hello.\n\nThere, friend"))
    assert frame.delta(entry, fresh) is None  # the hub renders it whole for this one
    frame.whole(entry, fresh)
    assert fresh.streamed[entry.id] == having.streamed[entry.id]
    assert deltas.work(entry, 0.0) is not None  # weighed as a stream from now on


def shown_raw(state: SessionState, deltas: TextDeltas) -> tuple[Item, TabView]:
    """A long paragraph a tab has, then a chunk of it, which the tab is sent as raw text; the frame sent."""
    entry = says(state, "word " * (SHORT_TAIL // 5 + 10))
    tab = TabView()
    tab.shows(state)
    entry = says(state, " more")
    frame = deltas.frame(state, {entry.id}, now=asyncio.get_running_loop().time())
    sent = frame.delta(entry, tab)
    assert sent is not None and "md-raw" in sent and tab.streamed[entry.id].raw
    frame.sent([entry], [tab])  # the render is due at once: the timer fires in the loop's next turn
    return entry, tab


async def test_a_long_tail_shown_raw_is_rendered_when_due_and_a_frame_asked_for() -> None:
    marks = Marks()
    state, deltas = SessionState(session_id="s-1"), TextDeltas(marks)
    entry, tab = shown_raw(state, deltas)
    loop = asyncio.get_running_loop()
    await eventually(lambda: marks.keys == [entry.id], timeout=30, what="the tail's render to be handed in")
    after = deltas.frame(state, {entry.id}, now=loop.time()).delta(entry, tab)
    assert after is not None and "<p>word word" in after
    assert not tab.streamed[entry.id].raw
    await deltas.stop()


async def test_stop_cancels_a_render_that_is_due() -> None:
    marks = Marks()
    state, deltas = SessionState(session_id="s-1"), TextDeltas(marks)
    _, tab = shown_raw(state, deltas)
    # The block finishes before the timer fires: a due render of a short tail only asks for a frame,
    # on the loop, so what the timer did shows at once.
    entry = says(state, "\n\nShort.\nMore")
    deltas.frame(state, {entry.id}, now=0.0).delta(entry, tab)
    await deltas.stop()
    for _ in range(3):
        await asyncio.sleep(0)  # loop turns, no waiting: the timer's turn has passed
    assert marks.keys == []
