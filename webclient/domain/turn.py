"""Where a session's turn stands, as the page shows it."""

from __future__ import annotations

from enum import StrEnum


class TurnState(StrEnum):
    IDLE = "idle"
    WORKING = "working"
    CANCELLING = "cancelling"
    # Cancel was asked for and the agent went on past the grace period: only stopping it ends the turn.
    UNRESPONSIVE = "unresponsive"
