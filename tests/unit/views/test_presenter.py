"""Presenter mode's default comes from the server; the switch is the browser's (e2e/test_presenter.py)."""

from __future__ import annotations

from webclient.domain.state import SessionState
from webclient.views import render


def test_the_page_starts_in_presenter_mode_only_when_the_server_says_so() -> None:
    assert 'data-present-default="on"' in render.page(SessionState(), ws_path="/ws/s1", present=True)
    assert 'data-present-default="off"' in render.page(SessionState(), ws_path="/ws/s1")
    assert 'data-testid="present-toggle"' in render.page(SessionState(), ws_path="/ws/s1")
