"""The conversation keeps room: at a desktop and a phone size, light and dark, with every `/suggest-demo`
preset in every style, expanded and not, and a plan from an earlier turn, the part of the conversation
that shows messages is at least 55% of the viewport's height."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.support.layouts import SCHEMES, Layout, assert_accessible, shoot
from tests.support.live import LiveServer
from tests.support.pages import choose_style, open_app, prompt, reload, user_messages

STYLES = ("chips", "list", "ghost")
PRESETS = ("short", "long", "many", "files", "image", "hostile", "invalid")
ROOM = 0.55

# The height of the conversation's viewport that is not covered by what sticks to its top (the plan).
_ROOM = """() => {
    const main = document.getElementById("conversation").getBoundingClientRect();
    const plan = document.getElementById("plan");
    let covered = 0;
    if (plan && !plan.hidden && getComputedStyle(plan).position === "sticky") {
        covered = plan.getBoundingClientRect().height;
    }
    return (main.height - covered) / window.innerHeight;
}"""


def finished_plan(page: Page) -> None:
    """A turn with a plan, answered and over: its plan stays from an earlier turn."""
    composer = page.get_by_test_id("composer")
    composer.fill("edit README.md")
    composer.press("Enter")
    page.locator('[data-testid="permission"] [data-option-id="apply"]').click()
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    expect(page.get_by_test_id("plan")).to_be_attached()


def expand_everything(page: Page) -> None:
    """Open what a user can open without sending: "+N more", and each collapsed suggestion."""
    more = page.get_by_test_id("suggestions-more")
    if more.count() and more.is_visible():
        more.click()
    for _ in range(page.locator('[data-testid="suggestion"][data-truncated="true"]').count()):
        collapsed = page.locator('[data-testid="suggestion"][data-truncated="true"]:visible')
        if not collapsed.count():
            break
        collapsed.first.click()


def room(page: Page) -> float:
    value: float = page.evaluate(_ROOM)
    return value


@pytest.mark.parametrize("preset", PRESETS)
def test_the_conversation_keeps_room_with_every_preset_in_every_style(
    sized_page: Page, server: LiveServer, layout: Layout, preset: str
) -> None:
    page = sized_page
    open_app(page, server)
    finished_plan(page)
    prompt(page, f"/suggest-demo {preset}")
    expect(page.locator('#suggestions [data-testid="suggestion"]').first).to_be_attached()
    short: list[str] = []
    for style in STYLES:
        reload(page)  # nothing expanded yet
        expect(page.get_by_test_id("connection")).to_have_attribute("data-state", "open")
        choose_style(page, style)
        for expanded in (False, True):
            if expanded:
                expand_everything(page)
            for scheme in SCHEMES:
                page.emulate_media(color_scheme=scheme)
                got = room(page)
                if got < ROOM:
                    short.append(f"{style}{' expanded' if expanded else ''} {scheme}: {got:.0%}")
            page.emulate_media(color_scheme="light")
            state = f"room-{preset}-{style}{'-expanded' if expanded else ''}"
            shoot(page, state, layout)
            try:
                assert_accessible(page, state)
            except AssertionError as failed:
                short.append(str(failed))
    assert user_messages(page).count() == 2, "opening a suggestion sent it"
    assert not short, f"{preset} at {layout.name}, less than {ROOM:.0%} or not accessible:\n" + "\n".join(
        short
    )
