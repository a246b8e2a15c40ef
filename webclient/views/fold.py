"""How a suggestion list folds above the composer: the one place its rule's parameters live.

The page shows as many suggestions as fit in the room the conversation does not need, then "+N more";
static/suggestion_fit.js applies the rule in the browser (only there are the sizes known), reading the
values the row carries (`Fold.attributes`). A presentation preset can pass a `Fold` of its own.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Fold:
    """The fold's rule.

    `floor`: the share of the window's height the conversation keeps, whatever the suggestions take;
    the folded list takes at most the rest. `lines`: how many lines of one suggestion's text show folded;
    a suggestion with more is collapsed (its first click opens the sheet, and auto-send never sends it).
    `most`: at most this many suggestions show folded, 0 for as many as fit. `area`: at most this many rows
    of chips (or lines of a list) the folded area takes, "+N more" included, 0 for no limit but the room
    (a presentation preset's fold by rows or lines).
    """

    floor: float = 0.55
    lines: int = 3
    most: int = 0
    area: int = 0

    def __post_init__(self) -> None:
        if not 0 < self.floor < 1:
            raise ValueError(f"floor must lie between 0 and 1, got {self.floor}")
        if self.lines < 1:
            raise ValueError(f"lines must be at least 1, got {self.lines}")
        if self.most < 0:
            raise ValueError(f"most must be 0 (as many as fit) or more, got {self.most}")
        if self.area < 0:
            raise ValueError(f"area must be 0 (no limit) or more, got {self.area}")

    def attributes(self) -> dict[str, str]:
        """The row's data attributes that carry the rule to the browser."""
        return {
            "data-fold-floor": f"{self.floor:g}",
            "data-fold-lines": str(self.lines),
            "data-fold-most": str(self.most),
            "data-fold-area": str(self.area),
        }


# The page's fold: the conversation keeps 55% of the window (e2e/test_room.py checks it), so a short list
# (up to four suggestions of up to 80 characters) shows whole on a desktop and on a phone.
FOLD = Fold()
