"""One frame's rendering of transcript entries for the live hub: each entry rendered at most once per
variant, however many tabs the frame goes to.

Each kind of entry that streams says what a tab is sent of its change (a `DeltaFrame`, `views/delta.py`);
an entry none of them takes is rendered whole, appended for a tab that does not have it yet.
"""

from __future__ import annotations

from collections.abc import Sequence

from webclient.domain.items import Item
from webclient.domain.state import SessionState
from webclient.views import render
from webclient.views.delta import DeltaFrame
from webclient.views.tab_view import TabView


class Rendered:
    """One frame's rendering of transcript entries, by the kinds' frames (`kinds`, asked in order)."""

    def __init__(self, state: SessionState, kinds: Sequence[DeltaFrame]) -> None:
        self._state = state
        self._kinds = kinds
        self._html: dict[tuple[str, bool], str] = {}

    def entries_for(self, tab: TabView, entries: list[Item]) -> str:
        """The frame of these changed entries for one tab, which then shows them."""
        html: list[str] = []
        new: list[str] = []
        for entry in entries:
            delta = self._delta(entry, tab)
            if delta is not None:
                html.append(delta)
                continue
            if entry.id in tab.known_items:
                html.append(self.item(entry, oob=True))
            else:
                new.append(self.item(entry, oob=False))
                tab.known_items.add(entry.id)
            for kind in self._kinds:
                kind.whole(entry, tab)
        if new:
            html.append(render.append_items("".join(new)))
        return "".join(html)

    def _delta(self, entry: Item, tab: TabView) -> str | None:
        for kind in self._kinds:
            delta = kind.delta(entry, tab)
            if delta is not None:
                return delta
        return None

    def item(self, entry: Item, *, oob: bool) -> str:
        key = (entry.id, oob)
        html = self._html.get(key)
        if html is None:
            html = self._html[key] = render.item(self._state, entry, oob=oob)
        return html
