"""The header shows whole at 1024 and 1280 px while a permission waits: its controls wrap onto a second
line rather than run off the window's edge (the Protocol button was cut off), and the permission's
one-time choice is the primary button, its lasting "always" less prominent."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.support.layouts import Layout, shoot
from tests.support.live import LiveServer
from tests.support.pages import open_app

_OVERFLOWING = """() => [
    ...document.querySelectorAll('.topbar, #session-header, #header-extra, #header-extra > *')]
    .filter(el => el.getClientRects().length && el.scrollWidth > el.clientWidth + 1)
    .map(el => (el.id || el.className) + ' ' + el.scrollWidth + '>' + el.clientWidth)"""


def waiting_for_permission(page: Page) -> None:
    composer = page.get_by_test_id("composer")
    composer.fill("edit README.md")
    composer.press("Enter")
    expect(page.locator('[data-testid="permission"] [data-option-id="apply"]')).to_be_visible()
    expect(page.get_by_test_id("agent-status")).to_contain_text("waiting for you")


@pytest.mark.parametrize("width", [1024, 1280])
def test_the_header_shows_whole_while_a_permission_waits(page: Page, server: LiveServer, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    open_app(page, server)
    waiting_for_permission(page)
    assert page.evaluate(_OVERFLOWING) == [], "cut off at the header's edge"
    protocol = page.get_by_test_id("inspector-toggle")
    expect(protocol).to_be_visible()
    box = protocol.bounding_box()
    assert box is not None and box["x"] + box["width"] <= width, f"the Protocol button ends at {box}"
    for testid in ("page-title", "agent-status", "mode-select"):
        expect(page.get_by_test_id(testid)).to_be_in_viewport(ratio=1)
    protocol.click()  # reachable, and it works
    expect(page.get_by_test_id("inspector")).to_be_visible()
    shoot(page, f"header-permission-{width}", Layout(f"w{width}", width, 800, phone=False))


def test_the_one_time_choice_is_the_primary_button_and_always_is_outlined(
    page: Page, server: LiveServer
) -> None:
    open_app(page, server)
    waiting_for_permission(page)
    once = page.locator('[data-testid="permission"] [data-option-id="apply"]')
    always = page.locator('[data-testid="permission"] [data-option-id="always"]')
    accent = once.evaluate("el => getComputedStyle(el).backgroundColor")
    assert always.evaluate("el => getComputedStyle(el).backgroundColor") != accent
    assert always.evaluate("el => getComputedStyle(el).borderTopColor") == accent  # outlined in the accent
