"""The fold shows what fits: at a desktop and a phone size, in every style, the agent's lists of 1, 3, 4, 8
and 40 suggestions of nearly 80 characters each show as many as the room the conversation does not need
holds (the conversation keeps 55% of the window, webclient/views/fold.py), so a short list (up to four)
shows whole; a longer one shows what fits, then "+N more", and one more would break the floor."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.support.layouts import Layout, shoot
from tests.support.live import LiveServer
from tests.support.pages import choose_style, open_app, suggest, text
from tests.support.suggestion_lists import eighty

STYLES = ("chips", "list", "ghost")
FLOOR = 0.55

_ROOM = "() => document.getElementById('conversation').getBoundingClientRect().height / innerHeight"

# Whether showing the first folded suggestion too ("+N more" still shown) would leave the conversation
# less than its floor; the row is folded again after.
_ONE_MORE_BREAKS_THE_FLOOR = """(floor) => {
    const next = document.querySelector('#suggestions .chip[data-overflow]');
    next.removeAttribute('data-overflow');
    const room = document.getElementById('conversation').getBoundingClientRect().height / innerHeight;
    next.setAttribute('data-overflow', 'true');
    return room < floor;
}"""


def shown(page: Page) -> int:
    return page.locator('#suggestions [data-testid="suggestion"]:visible').count()


def assert_whole(page: Page, prompts: list[str], style: str) -> None:
    """Every suggestion shows, none collapsed and nothing "+N more"."""
    if style == "ghost":
        for i, prompt in enumerate(prompts):
            entry = page.locator(f'#ghost-text [data-testid="ghost-entry"][data-index="{i}"]')
            expect(entry).to_be_visible()
            expect(entry).to_have_text(prompt)
            expect(page.get_by_test_id("suggestion").nth(i)).not_to_have_attribute("data-truncated", "true")
            if i + 1 < len(prompts):
                page.get_by_test_id("ghost-next").click()
        return
    expect(page.get_by_test_id("suggestions-more")).to_be_hidden()
    expect(page.locator('#suggestions [data-testid="suggestion"]:visible')).to_have_count(len(prompts))
    expect(page.locator('[data-testid="suggestion"][data-truncated="true"]')).to_have_count(0)


def assert_what_fits(page: Page, count: int) -> None:
    """As many as fit, each whole, then "+N more" for the rest; one more would not fit."""
    more = page.get_by_test_id("suggestions-more")
    expect(more).to_be_visible()
    visible = shown(page)
    assert visible >= 3, f"only {visible} of {count} shown"
    expect(more).to_have_text(f"+{count - visible} more")
    expect(page.locator('[data-testid="suggestion"][data-truncated="true"]:visible')).to_have_count(0)
    assert page.evaluate(_ONE_MORE_BREAKS_THE_FLOOR, FLOOR), f"{visible} shown, and one more fits"


@pytest.mark.parametrize("count", [1, 3, 4, 8, 40])
def test_the_fold_shows_what_fits_in_every_style(
    sized_page: Page, server: LiveServer, layout: Layout, count: int
) -> None:
    page = sized_page
    open_app(page, server)
    prompts = eighty(count)
    assert all(len(p) <= 80 for p in prompts)
    suggest(page, *[[text(p)] for p in prompts])
    for style in STYLES:
        choose_style(page, style)
        page.get_by_test_id("composer").focus()  # leave the options menu as a user would
        room: float = page.evaluate(_ROOM)
        assert room >= FLOOR, f"{style}: the conversation has {room:.0%} of the window"
        if count <= 4 or style == "ghost":
            assert_whole(page, prompts, style) if count <= 4 else assert_whole(page, prompts[:1], style)
        else:
            assert_what_fits(page, count)
        shoot(page, f"fold-{count}-{style}", layout)
