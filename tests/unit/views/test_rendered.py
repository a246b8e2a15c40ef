"""Rendered: the kinds are asked in order for a delta; an entry none takes is rendered whole (appended
for a tab that does not have it, replaced for one that does), and each kind notes what the tab shows."""

from __future__ import annotations

from tests.support.html import ids as tag_ids
from tests.support.html import top_level
from webclient.acp.models import MessageChunk, TextPart
from webclient.domain.items import Item
from webclient.domain.state import SessionState
from webclient.views.rendered import Rendered
from webclient.views.tab_view import TabView


class Kind:
    """A kind of entry that takes the entries in `taken`, sending `frame` for each."""

    def __init__(self, taken: set[str], frame: str) -> None:
        self.taken, self.frame = taken, frame
        self.asked: list[str] = []
        self.noted: list[str] = []

    def delta(self, entry: Item, tab: TabView) -> str | None:
        self.asked.append(entry.id)
        return self.frame if entry.id in self.taken else None

    def whole(self, entry: Item, tab: TabView) -> None:
        self.noted.append(entry.id)

    def ahead(self, entry: Item, tab: TabView) -> str | None:
        raise AssertionError("not the walk's: the hub asks it before a frame rendered off the loop")

    def sent(self, entries: list[Item], tabs: list[TabView]) -> None:
        raise AssertionError("not the walk's: the hub calls it once the frame went out")


def answers() -> tuple[SessionState, list[str]]:
    state = SessionState(session_id="s-1")
    for text in ("one", "two", "three"):
        state.apply(MessageChunk(role="agent", content=TextPart(text=text)))
        state.apply(MessageChunk(role="user", content=TextPart(text="next")))  # the next answer is new
    return state, [entry.id for entry in state.items]


def test_the_first_kind_that_takes_an_entry_sends_its_delta_and_the_rest_are_not_asked() -> None:
    state, ids = answers()
    first, second = Kind({ids[0]}, "<i>first</i>"), Kind({ids[0], ids[2]}, "<i>second</i>")
    tab = TabView()
    tab.shows(state)
    html = Rendered(state, [first, second]).entries_for(tab, list(state.items[:3]))
    assert first.asked == ids[:3] and second.asked == ids[1:3]
    # The one neither took is replaced whole (the tab has it), in its place; both note what the tab shows.
    assert html.startswith("<i>first</i>") and html.endswith("<i>second</i>")
    (replaced,) = top_level(html.removeprefix("<i>first</i>").removesuffix("<i>second</i>"))
    assert replaced.attrs.get("id") == ids[1] and replaced.attrs.get("hx-swap-oob") == "outerHTML"
    assert first.noted == second.noted == [ids[1]]


def test_entries_a_tab_does_not_have_are_appended_together_in_order_the_same_for_every_tab() -> None:
    state, ids = answers()
    none = Kind(set(), "")
    rendered = Rendered(state, [none])
    frames = [rendered.entries_for(TabView(), list(state.items)) for _ in range(2)]
    assert frames[0] == frames[1]
    (appended,) = top_level(frames[0])  # one swap that appends them all, in order
    assert "beforeend" in str(appended.attrs.get("hx-swap-oob"))
    assert [found for found in tag_ids(frames[0]) if found in ids] == ids
    tab = TabView()
    rendered.entries_for(tab, list(state.items))
    assert tab.known_items == set(ids)
