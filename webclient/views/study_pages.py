"""The study's HTML: the consent and recording banner of a session's page, the list of studies, and a
study's report (figures, comparisons, plots). Pure: data in, HTML out."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from webclient.domain.study import Participant
from webclient.domain.study_log import StudyEvent
from webclient.domain.study_report import PresetFigures, Share, compare, figures
from webclient.views import study_plots
from webclient.views.render import environment
from webclient.views.study_config import StudyPlan

BannerState = Literal["invite", "recording", "stopped"]


def banner(plan: StudyPlan, state: BannerState, participant: Participant | None, where: str) -> str:
    """The banner a session's page shows while the study runs."""
    template = environment().get_template("studies/_banner.html")
    return template.render(plan=plan, stage=state, participant=participant, where=where)


def studies_page(studies: Sequence[tuple[str, int, int]], running: str | None) -> str:
    template = environment().get_template("studies/page.html")
    return template.render(studies=studies, running=running, report=None)


@dataclass(frozen=True)
class Report:
    name: str
    participants: int
    events: int
    running: bool
    figures: list[PresetFigures]
    comparisons: list[str]
    plots: list[study_plots.Plot]


def report(name: str, events: Sequence[StudyEvent], presets: Sequence[str], running: bool) -> Report:
    """The report of study `name`: its presets (those the running study compares first) and their pairs."""
    found = figures(events, presets)
    return Report(
        name=name,
        participants=len({e.participant for e in events}),
        events=len(events),
        running=running,
        figures=found,
        comparisons=[compare(a, b).sentence() for a, b in itertools.combinations(found, 2)],
        plots=[study_plots.sent_shares(found), study_plots.first_actions(found), study_plots.ranks(found)],
    )


def report_page(found: Report) -> str:
    template = environment().get_template("studies/page.html")
    return template.render(report=found, percent=_percent, seconds=_seconds)


def _percent(share: Share) -> str:
    return f"{round(share.value * 100)}%" if share.total else "—"


def _seconds(ms: float | None) -> str:
    return "—" if ms is None else f"{ms / 1000:.1f} s"
