"""The study's report as HTML: figures and plots from events, everything escaped, no inline style."""

from __future__ import annotations

import re

from tests.support.html import tags
from webclient.domain.study_log import StudyEvent
from webclient.views.study_pages import report, report_page


def event(kind: str, preset: str, gen: int, rank: int | None = None, elapsed: int = 0) -> StudyEvent:
    return StudyEvent("s", "participant-1", "s1", preset, gen, kind, rank, elapsed, None)


def test_the_report_escapes_what_an_import_brought_and_draws_its_plots_without_style() -> None:
    hostile = '<img src=x onerror="alert(1)">'
    events = [
        event("shown", "chips", 1),
        event("sent", "chips", 1, 2, 1200),
        event("shown", hostile, 2),
        event("dismissed", hostile, 2, None, 300),
    ]
    html = report_page(report("s", events, ("chips",), running=False))
    assert hostile not in html and "&lt;img src=x" in html
    assert not re.search(r"\sstyle=", html)
    assert html.count('data-testid="study-plot"') == 3 and html.count("<svg") == 3
    body = html.split("<body", 1)[1]
    # Nothing in it can act: no script, no handler attribute.
    assert not [t for t in tags(body) if t.name == "script" or any(a.startswith("on") for a in t.attrs)]
    assert 'data-preset="chips" data-lists="1" data-sent="1"' in html
    assert "#2: 1" in html  # the rank chosen
    assert "median 1.2 s" in html
