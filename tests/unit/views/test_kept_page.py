"""A stored copy's page: marked as one, its transcript rendered as a live one is, actions in place of the
composer (and no fragment that would look for the composer), and the sidebar's list of copies."""

from __future__ import annotations

import re

from tests.support.html import text
from webclient.acp.models import AgentStatus
from webclient.domain.kept.entries import KeptCopy, KeptEntry, rebuild
from webclient.domain.sidebar import KeptLink, Sidebar
from webclient.domain.state import Aspect, SessionState
from webclient.views import render
from webclient.views.regions import IN_COMPOSER, REGIONS

HOSTILE = '<img src=x onerror="alert(1)">'


def copy_state() -> SessionState:
    state = SessionState(agent_key="demo", agent_label=f"Demo {HOSTILE}")
    entries = [
        KeptEntry(kind="message", role="user", text="what is **here**?"),
        KeptEntry(kind="message", role="agent", text=f"a *list* of files {HOSTILE}"),
    ]
    state.show_copy(KeptCopy(key="a" * 32, title="what is here?", saved_at=0.0), rebuild(entries))
    return state


def test_a_copy_page_says_what_it_is_and_has_actions_instead_of_a_composer() -> None:
    page = render.page(copy_state(), ws_path="/ws/s2")

    assert 'data-testid="kept-banner"' in page and "Stored copy" in page
    assert render.local_time(0.0) in text(page)  # when it was kept
    assert 'data-testid="composer"' not in page and 'id="composer-form"' not in page
    assert 'data-testid="copy-into-new"' in page and 'data-testid="confirm-kept-delete"' in page
    assert '"action": "delete_copy", "key": "' + "a" * 32 in page.replace("&#34;", '"')
    assert "<em>list</em>" in page  # the agent's Markdown, rendered as in a live session
    assert HOSTILE not in page  # escaped: the agent's text and the agent's name alike
    assert 'data-state="read-only"' in page


def test_no_fragment_for_a_copy_page_looks_for_the_composer() -> None:
    state = copy_state()

    fragments = render.snapshot(state) + "".join(render.region(state, key) for key in REGIONS)

    for partial in IN_COMPOSER:
        name = partial.removeprefix("_").removesuffix(".html").replace("_", "-")
        assert f'id="{name}"' not in fragments, partial
    live = SessionState(session_id="s-1")
    live.set_agent_status(AgentStatus.READY)
    assert 'id="composer-actions"' in render.snapshot(live)  # what the filter leaves out elsewhere


def test_the_sidebar_lists_copies_with_title_agent_and_time_and_marks_the_one_shown() -> None:
    state = SessionState(session_id="s-1")
    links = (
        KeptLink(key="b" * 32, title=f"lost {HOSTILE}", agent="Demo", saved_at=0.0),
        KeptLink(key="c" * 32, title="shown", agent="Demo", saved_at=0.0, current=True),
    )
    state.set_sidebar(Sidebar(kept=links, kept_more=3))

    sidebar = render.region(state, Aspect.KEPT_COPIES)

    assert "Stored copies" in sidebar
    assert sidebar.count('data-testid="kept-copy"') == 2
    assert HOSTILE not in sidebar and "lost" in sidebar
    assert f"Demo · {render.local_time(0.0)}" in text(sidebar)
    assert sidebar.count('aria-current="page"') == 1
    assert "and 3 more, not listed" in text(sidebar)
    assert 'data-testid="kept-older"' not in sidebar  # two copies: none folded away
    assert "Stored copies" not in render.region(SessionState(session_id="s-1"), Aspect.KEPT_COPIES)


def test_past_five_copies_the_older_ones_fold_away_and_unfold_when_the_one_shown_is_among_them() -> None:
    def sidebar_with(current: int | None) -> str:
        state = SessionState(session_id="s-1")
        links = tuple(
            KeptLink(key=f"{n:032x}", title=f"copy {n}", agent="Demo", saved_at=0.0, current=n == current)
            for n in range(7)
        )
        state.set_sidebar(Sidebar(kept=links))
        return render.region(state, Aspect.KEPT_COPIES)

    folded = sidebar_with(None)
    older = folded[folded.index('data-testid="kept-older"') :]
    assert folded.count('data-testid="kept-copy"') == 7
    assert older.count('data-testid="kept-copy"') == 2 and "copy 5" in older and "copy 4" not in older
    assert "2 older copies" in text(older)
    assert re.search(r'data-testid="kept-older"\s*>', folded)  # folded
    assert re.search(r'data-testid="kept-older"\s*open>', sidebar_with(6))  # the one shown is in it
