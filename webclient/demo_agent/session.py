"""A session that is open in this agent process: its record, workspace, suggestions and running turn."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from .modes import SessionSettings
from .offers import SuggestionOffers
from .store import SessionRecord
from .workspace import Workspace

__all__ = ["DemoSession"]


@dataclass(slots=True)
class DemoSession:
    """Runtime state beside the persisted record.

    ``lock`` serialises turns (and a load's replay); ``cancelled`` is the running turn's cancel flag;
    ``next_delay_ms`` is the ``/suggest-delay`` override for the next list sent after a turn; ``settings``
    holds the mode and config options; ``always_allow_edits`` remembers an "allow always" permission answer;
    ``title_sent`` whether ``session_info_update`` has named the session.
    """

    record: SessionRecord
    workspace: Workspace
    offers: SuggestionOffers
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    cancelled: asyncio.Event | None = None
    next_delay_ms: float | None = None
    settings: SessionSettings = field(default_factory=lambda: SessionSettings(boolean_config=False))
    always_allow_edits: bool = False
    title_sent: bool = False

    @property
    def session_id(self) -> str:
        return self.record.session_id

    def begin_turn(self) -> asyncio.Event:
        self.cancelled = asyncio.Event()
        return self.cancelled

    def end_turn(self) -> None:
        self.cancelled = None

    def cancel_turn(self) -> None:
        """Ask the running turn, if any, to stop at its next chunk."""
        if self.cancelled is not None:
            self.cancelled.set()

    def take_delay_s(self, default_s: float) -> float:
        """The delay for the next list sent after a turn, consuming a ``/suggest-delay`` override."""
        delay_ms, self.next_delay_ms = self.next_delay_ms, None
        return default_s if delay_ms is None else delay_ms / 1000

    async def close(self) -> None:
        self.cancel_turn()
        await self.offers.close()
