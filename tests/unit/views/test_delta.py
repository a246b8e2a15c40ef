"""The delta renderers' contract: each leaves alone an entry not of its kind (the hub renders it whole,
and the next kind is asked), and both satisfy `DeltaRenderer`."""

from __future__ import annotations

import copy

import pytest

from webclient.acp.models import MessageChunk, TextPart, ToolCallEvent
from webclient.domain.items import Item
from webclient.domain.state import SessionState
from webclient.views.card_deltas import CardDeltas
from webclient.views.delta import DeltaRenderer
from webclient.views.tab_view import TabView
from webclient.views.text_deltas import TextDeltas


def renderers() -> list[DeltaRenderer]:
    return [TextDeltas(lambda keys: None), CardDeltas(lambda keys: None)]


def entries() -> tuple[SessionState, Item, Item, Item]:
    state = SessionState(session_id="s-1")
    state.apply(MessageChunk(role="user", content=TextPart(text="run it")))
    user = state.items[-1]
    state.apply(MessageChunk(role="agent", content=TextPart(text="Running.")))
    answer = state.items[-1]
    state.apply(ToolCallEvent(tool_call_id="t-1", is_update=False, title="Run", status="in_progress"))
    return state, user, answer, state.items[-1]


@pytest.mark.parametrize("kind", [0, 1])
async def test_an_entry_not_of_its_kind_is_left_to_the_hub_and_the_tab_unchanged(kind: int) -> None:
    state, user, answer, card = entries()
    renderer = renderers()[kind]
    others = [user, card] if isinstance(renderer, TextDeltas) else [user, answer]
    tab = TabView()
    tab.shows(state)
    before = copy.deepcopy((tab.known_items, tab.streamed, tab.cards))
    frame = renderer.frame(state, {entry.id for entry in state.items}, now=0.0)
    for entry in others:
        assert renderer.work(entry, 0.0) is None
        assert renderer.markdown_work(entry, 0.0) == 0
        assert frame.delta(entry, tab) is None
        frame.whole(entry, tab)
    assert (tab.known_items, tab.streamed, tab.cards) == before
    frame.sent(others, [tab])
    await renderer.stop()


async def test_each_kind_takes_its_own_entries() -> None:
    state, _, answer, card = entries()
    text, cards = renderers()
    tab = TabView()
    tab.shows(state)
    state.apply(MessageChunk(role="agent", content=TextPart(text=" Done.")))
    assert text.frame(state, {answer.id}, now=0.0).delta(answer, tab) is not None
    cards.frame(state, {card.id}, now=0.0).whole(card, tab)
    assert cards.frame(state, {card.id}, now=0.0).delta(card, tab) == ""  # unchanged: nothing to add
