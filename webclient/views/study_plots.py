"""The study report's plots as SVG, made here on the server: no script, and no style attribute (the page's
Content-Security-Policy allows neither inline); colours come from the page's stylesheet by class.

Each plot is a `Plot`: its geometry as plain values, which `templates/studies/_plot.html` turns into markup
(so everything is escaped as any template's output is), with a title and a description for screen
readers; the report's table says the same in numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from webclient.domain.study_report import PresetFigures

WIDTH = 640
ROW = 34  # height of a preset's row
LEFT = 130  # room for the presets' names
RIGHT = 20
TOP = 12
AXIS = 30  # room under the rows for the axis labels


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    kind: str = "bar"  # a CSS class: bar, box, rank-N


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    kind: str = "whisker"


@dataclass(frozen=True)
class Label:
    x: float
    y: float
    text: str
    anchor: str = "start"
    kind: str = "label"


@dataclass(frozen=True)
class Plot:
    id: str
    title: str
    description: str
    height: float
    bars: list[Bar] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)
    width: float = WIDTH


def _x(value: float, top: float) -> float:
    span = WIDTH - LEFT - RIGHT
    return LEFT + (value / top if top else 0.0) * span


def _frame(plot: Plot, count: int, ticks: list[tuple[float, str]], top: float) -> None:
    bottom = TOP + count * ROW
    plot.lines.append(Line(LEFT, TOP, LEFT, bottom, "axis"))
    for value, text in ticks:
        x = _x(value, top)
        plot.lines.append(Line(x, TOP, x, bottom, "grid"))
        plot.labels.append(Label(x, bottom + 18, text, "middle", "tick"))


def _name(plot: Plot, row: int, name: str) -> None:
    plot.labels.append(Label(LEFT - 8, TOP + row * ROW + ROW / 2 + 4, name, "end"))


def sent_shares(figures: list[PresetFigures]) -> Plot:
    """Per preset: the share of lists a suggestion was sent from, and its 95% interval."""
    described = "; ".join(
        f"{f.preset}: {round(f.sent.value * 100)}% (95% interval {round(f.sent.low * 100)} to "
        f"{round(f.sent.high * 100)}%) of {f.lists} lists"
        for f in figures
    )
    plot = Plot("plot-sent", "Lists a suggestion was sent from", described, TOP + len(figures) * ROW + AXIS)
    _frame(plot, len(figures), [(v / 100, f"{v}%") for v in (0, 25, 50, 75, 100)], 1.0)
    for row, f in enumerate(figures):
        y = TOP + row * ROW + 8
        plot.bars.append(Bar(LEFT, y, _x(f.sent.value, 1.0) - LEFT, ROW - 16))
        if f.lists:
            middle = y + (ROW - 16) / 2
            plot.lines.append(Line(_x(f.sent.low, 1.0), middle, _x(f.sent.high, 1.0), middle))
            for end in (f.sent.low, f.sent.high):
                plot.lines.append(Line(_x(end, 1.0), middle - 6, _x(end, 1.0), middle + 6))
        _name(plot, row, f.preset)
    return plot


def first_actions(figures: list[PresetFigures]) -> Plot:
    """Per preset: the quartiles of the time to the first action, as a box with its median."""
    seconds = [f.first_action.q3 or 0.0 for f in figures]
    top = max(1000.0, max(seconds, default=0.0) * 1.1)
    step = _step(top / 1000)
    ticks = [(s * 1000, f"{s:g} s") for s in _range(step, top / 1000)]
    described = "; ".join(
        f"{f.preset}: median {_s(f.first_action.median)}, quartiles {_s(f.first_action.q1)} to "
        f"{_s(f.first_action.q3)}"
        for f in figures
    )
    plot = Plot("plot-first", "Time to the first action", described, TOP + len(figures) * ROW + AXIS)
    _frame(plot, len(figures), ticks, top)
    for row, f in enumerate(figures):
        spread = f.first_action
        y = TOP + row * ROW + 8
        if spread.q1 is not None and spread.q3 is not None and spread.median is not None:
            left, right = _x(spread.q1, top), _x(spread.q3, top)
            plot.bars.append(Bar(left, y, max(2.0, right - left), ROW - 16, "box"))
            plot.lines.append(
                Line(_x(spread.median, top), y - 3, _x(spread.median, top), y + ROW - 13, "median")
            )
        _name(plot, row, f.preset)
    return plot


def ranks(figures: list[PresetFigures]) -> Plot:
    """Per preset: how often each rank was chosen, as one bar per rank (1: the agent's first)."""
    found = sorted({rank for f in figures for rank in f.ranks})
    top = max([count for f in figures for count in f.ranks.values()], default=1)
    described = "; ".join(
        f"{f.preset}: "
        + (", ".join(f"rank {r} chosen {c} times" for r, c in f.ranks.items()) or "none chosen")
        for f in figures
    )
    plot = Plot("plot-ranks", "Ranks chosen", described, TOP + len(figures) * ROW + AXIS + 20)
    counts = _range(max(1.0, _step(top)), top)  # counts are whole
    _frame(plot, len(figures), [(v, f"{v:g}") for v in counts], float(top))
    band = (ROW - 10) / max(1, len(found))
    for row, f in enumerate(figures):
        for place, rank in enumerate(found):
            count = f.ranks.get(rank, 0)
            y = TOP + row * ROW + 5 + place * band
            plot.bars.append(
                Bar(LEFT, y, _x(count, float(top)) - LEFT, max(1.0, band - 1), f"rank rank-{min(rank, 6)}")
            )
        _name(plot, row, f.preset)
    for place, rank in enumerate(found):
        plot.labels.append(
            Label(LEFT + place * 70, plot.height - 2, f"■ rank {rank}", "start", f"key rank-{min(rank, 6)}")
        )
    return plot


def _s(value: float | None) -> str:
    return "none" if value is None else f"{value / 1000:.1f} s"


def _step(top: float) -> float:
    for step in (0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500):
        if top / step <= 5:
            return float(step)
    return 1000.0


def _range(step: float, top: float) -> list[float]:
    values, value = [], 0.0
    while value <= top + 1e-9:
        values.append(value)
        value += step
    return values
