"""The seam between the live hub and the kinds of entry it sends as what changed (a delta).

The hub (`views/live.py`) fans each frame out to the tabs; it does not know how an entry grows. Each kind
of entry that streams has a `DeltaRenderer`: it owns what outlives a frame (a streamed answer's reading,
the timers that render a long tail or a card whole later) and makes one `DeltaFrame` per frame, which
says what a tab is sent of an entry's change. An entry no renderer takes is rendered whole.
"""

from __future__ import annotations

from typing import Protocol

from webclient.domain.items import Item
from webclient.domain.state import SessionState
from webclient.views.tab_view import TabView


class DeltaFrame(Protocol):
    """One frame's rendering of one kind of entry: each change rendered once, shared by every tab at the
    same point. It may run on a worker thread (`delta`, `whole`); `sent` runs on the loop."""

    def delta(self, entry: Item, tab: TabView) -> str | None:
        """What `tab` is sent of `entry`'s change, and it notes what the tab shows then; None: the entry
        whole (the hub renders it)."""
        ...

    def whole(self, entry: Item, tab: TabView) -> None:
        """`tab` was sent `entry` whole: note what it shows of it now."""
        ...

    def ahead(self, entry: Item, tab: TabView) -> str | None:
        """What `tab` is sent of `entry`'s change at once, on the loop, when this frame renders on a worker
        thread (a long block that finished): what arrived, appended as it came, which the frame's render
        then replaces; it notes what the tab shows then. None: nothing to send ahead."""
        ...

    def sent(self, entries: list[Item], tabs: list[TabView]) -> None:
        """The frame went out to the tabs (`tabs`, every one connected now): schedule what is due later."""
        ...


class DeltaRenderer(Protocol):
    """One kind of streaming entry, for the life of a session's hub; `mark` (given to it) asks for a frame."""

    def work(self, entry: Item, now: float) -> int | None:
        """What rendering `entry`'s change costs, in characters; None: not an entry of this kind."""
        ...

    def markdown_work(self, entry: Item, now: float) -> int:
        """The characters of Markdown the next frame renders for `entry` (0: none, or not of this kind)."""
        ...

    def frame(self, state: SessionState, dirty: set[str], now: float) -> DeltaFrame:
        """The renderer of the frame being taken now, on the loop, for the keys `dirty`."""
        ...

    async def stop(self) -> None:
        """Cancel every timer and task: the hub stops."""
        ...
