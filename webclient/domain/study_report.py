"""A study's figures per preset, from its events; and a comparison of two presets in plain words.

A *list* is one list of suggestions shown in one session (study, participant, session, generation). Per
preset: the lists shown; the share of them from which a suggestion was sent (sent, edited then sent, or
auto-sent), with its 95% Wilson score interval; the median and quartiles of the time from the list showing
to the first thing done with it; the share of sends that were edited first; the share of lists dismissed;
and how often each rank was chosen. Two presets compare by the difference of their sent shares, with
Newcombe's interval for a difference (built from the two Wilson intervals).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from webclient.domain.study_log import StudyEvent

Z95 = 1.959963984540054
SENDS = frozenset({"sent", "edited", "auto_sent"})
ListKey = tuple[str, str, int]  # participant, session, generation


@dataclass(frozen=True)
class Share:
    """`count` of `total`, with its 95% Wilson interval (0 to 1; all zero when `total` is 0)."""

    count: int
    total: int
    low: float
    high: float

    @property
    def value(self) -> float:
        return self.count / self.total if self.total else 0.0


def wilson(count: int, total: int, z: float = Z95) -> Share:
    """The Wilson score interval of `count` successes in `total` trials."""
    if total <= 0:
        return Share(count, total, 0.0, 0.0)
    p = count / total
    z2 = z * z
    centre = (p + z2 / (2 * total)) / (1 + z2 / total)
    half = z / (1 + z2 / total) * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total))
    return Share(count, total, max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class Spread:
    """Median and quartiles of some times, in milliseconds (None when there are none)."""

    count: int
    q1: float | None = None
    median: float | None = None
    q3: float | None = None


def spread(values: Sequence[float]) -> Spread:
    if not values:
        return Spread(0)
    if len(values) == 1:
        return Spread(1, values[0], values[0], values[0])
    q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return Spread(len(values), q1, median, q3)


@dataclass(frozen=True)
class PresetFigures:
    preset: str
    participants: int
    lists: int
    sent: Share
    first_action: Spread
    edited: Share  # of the lists a suggestion was sent from
    dismissed: Share
    ranks: dict[int, int] = field(default_factory=dict)  # rank chosen -> how often


def figures(events: Iterable[StudyEvent], presets: Sequence[str] = ()) -> list[PresetFigures]:
    """The figures of each preset: those named first, in their order, then any other the events have."""
    by_preset: dict[str, list[StudyEvent]] = {name: [] for name in presets}
    for event in events:
        by_preset.setdefault(event.preset, []).append(event)
    return [_figures(name, found) for name, found in by_preset.items()]


def _figures(preset: str, events: list[StudyEvent]) -> PresetFigures:
    lists: dict[ListKey, list[StudyEvent]] = {}
    for event in events:
        lists.setdefault((event.participant, event.session, event.list), []).append(event)
    shown = {key: found for key, found in lists.items() if any(e.event == "shown" for e in found)}
    sent = [key for key, found in shown.items() if any(e.event in SENDS for e in found)]
    edited = [key for key in sent if any(e.event == "edited" for e in shown[key])]
    dismissed = [key for key, found in shown.items() if any(e.event == "dismissed" for e in found)]
    firsts = [
        min(e.elapsed_ms for e in acted)
        for found in shown.values()
        if (acted := [e for e in found if e.event not in ("shown", "auto_cancelled")])
    ]
    ranks = Counter(e.rank for found in shown.values() for e in found if e.event in SENDS and e.rank)
    return PresetFigures(
        preset=preset,
        participants=len({e.participant for e in events}),
        lists=len(shown),
        sent=wilson(len(sent), len(shown)),
        first_action=spread(sorted(float(v) for v in firsts)),
        edited=wilson(len(edited), len(sent)),
        dismissed=wilson(len(dismissed), len(shown)),
        ranks=dict(sorted(ranks.items())),
    )


@dataclass(frozen=True)
class Comparison:
    """The sent share of `first` minus that of `second`, with its 95% interval."""

    first: PresetFigures
    second: PresetFigures
    difference: float
    low: float
    high: float

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0

    def sentence(self) -> str:
        """The comparison in plain words."""
        a, b = self.first, self.second
        if not a.lists or not b.lists:
            return f"{a.preset} and {b.preset} cannot be compared yet: each needs lists shown."
        points = round(abs(self.difference) * 100)
        if points == 0:
            what = f"Suggestions were sent from as many lists with {a.preset} as with {b.preset}"
        else:
            more, fewer = (a, b) if self.difference > 0 else (b, a)
            what = (
                f"Suggestions were sent from {points} points more lists with {more.preset}"
                f" than with {fewer.preset}"
            )
        span = f"(95% interval {_points(self.low)} to {_points(self.high)} points)"
        if self.excludes_zero:
            verdict = "the interval excludes zero, so the difference is unlikely to be chance."
        else:
            verdict = "the interval includes zero, so these lists do not show a difference yet."
        return f"{what} {span}: {verdict}"


def compare(first: PresetFigures, second: PresetFigures) -> Comparison:
    """Newcombe's hybrid score interval for the difference of the two sent shares."""
    a, b = first.sent, second.sent
    difference = a.value - b.value
    low = difference - math.sqrt((a.value - a.low) ** 2 + (b.high - b.value) ** 2)
    high = difference + math.sqrt((a.high - a.value) ** 2 + (b.value - b.low) ** 2)
    return Comparison(first, second, difference, max(-1.0, low), min(1.0, high))


def _points(value: float) -> str:
    points = round(value * 100)
    return f"+{points}" if points > 0 else ("\N{MINUS SIGN}" + str(-points) if points < 0 else "0")
