"""What one connected tab shows of its session, as the live frames keep track of it.

The hub sends each tab only what it lacks: an entry it does not have is appended, a streamed answer
gets what arrived since the tab's last frame, a card what it gained. So each tab's view is kept here,
apart from how its frames travel (`views/subscriber.py`), and a snapshot resets it (`shows`).
"""

from __future__ import annotations

from webclient.domain.state import SessionState
from webclient.views.card_stream import CardShown
from webclient.views.inspector import Cursor
from webclient.views.markdown_stream import finished_end, streamed_text
from webclient.views.streamed import Shown


class TabView:
    """The transcript entries one tab has, what it shows of each streamed answer and growing card, and
    how far its protocol inspector is."""

    def __init__(self) -> None:
        self.known_items: set[str] = set()
        # For each streamed answer this tab has, what it shows of it; the same of each card with a terminal.
        self.streamed: dict[str, Shown] = {}
        self.cards: dict[str, CardShown] = {}
        self.inspector = Cursor()  # what this tab's protocol inspector already shows
        # Only a tab whose inspector is open is sent its entries: a closed panel costs nothing.
        self.watching_inspector = False

    def shows(self, state: SessionState) -> None:
        """The tab is being sent a snapshot of `state`: what it shows is that, and nothing streamed since."""
        self.known_items = {entry.id for entry in state.items}
        self.streamed = {}
        self.cards = {}
        for entry in state.items:
            if (text := streamed_text(entry)) is not None:
                self.streamed[entry.id] = Shown(finished_end(text), len(text))  # as the snapshot has it
