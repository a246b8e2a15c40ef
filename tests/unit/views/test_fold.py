"""The fold's rule: its values, checked, and carried to the browser on the suggestion row."""

from __future__ import annotations

import pytest

from webclient.acp.suggestions import parse_update
from webclient.domain.state import Aspect, SessionState
from webclient.views import render
from webclient.views.fold import FOLD, Fold


def test_the_default_fold_keeps_the_conversation_55_percent_and_shows_three_lines() -> None:
    assert FOLD.attributes() == {
        "data-fold-floor": "0.55",
        "data-fold-lines": "3",
        "data-fold-most": "0",
        "data-fold-area": "0",
    }


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"floor": 1.2}, "floor must lie between 0 and 1"),
        ({"floor": 0}, "floor must lie between 0 and 1"),
        ({"lines": 0}, "lines must be at least 1"),
        ({"most": -1}, "most must be 0"),
        ({"area": -1}, "area must be 0"),
    ],
    ids=["floor-above-1", "floor-0", "lines-0", "most-negative", "area-negative"],
)
def test_a_fold_out_of_range_is_refused_with_what_is_wrong(values: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Fold(**values)  # type: ignore[arg-type]


def test_the_row_carries_the_folds_rule_to_the_browser() -> None:
    state = SessionState()
    parsed = parse_update(
        {"suggestions": [{"prompt": [{"type": "text", "text": "List files"}]}]}, frozenset({"text"})
    )
    state.set_suggestions(parsed.suggestions)
    html = render.region(state, Aspect.SUGGESTIONS)
    assert 'data-fold-floor="0.55" data-fold-lines="3" data-fold-most="0" data-fold-area="0"' in html
