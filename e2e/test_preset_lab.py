"""The preset lab in a real browser: two live previews side by side, knobs that change one preset's
previews and not the other's, a choice that shows what it would send, and the presets as a file; axe-clean
in light and dark on a desktop and a phone."""

from __future__ import annotations

import tomllib

import pytest
from playwright.sync_api import Browser, FrameLocator, Page, expect

from tests.support.browser import UI_TIMEOUT_MS, sign_in
from tests.support.layouts import LAYOUTS, Layout, shoot
from tests.support.live import LiveServer


def frame(page: Page, side: str, layout: str = "desktop") -> FrameLocator:
    return page.frame_locator(f'[data-testid="preset-frame"][data-side="{side}"][data-layout="{layout}"]')


def knob(page: Page, side: str, name: str):  # type: ignore[no-untyped-def]
    return page.locator(f'[data-testid="preset-side"][data-side="{side}"]').get_by_test_id(name)


def test_knobs_change_one_presets_live_previews_and_a_choice_shows_what_it_would_send(
    page: Page, server: LiveServer
) -> None:
    page.goto(f"{server.base}/presets")
    for layout in ("desktop", "phone"):
        expect(frame(page, "a", layout).get_by_test_id("suggestions")).to_have_attribute(
            "data-style", "chips"
        )
        expect(frame(page, "b", layout).get_by_test_id("suggestions")).to_have_attribute("data-style", "list")

    knob(page, "a", "knob-style").select_option("list")
    expect(page.get_by_test_id("preset-name").first).to_have_text("chips-a")
    knob(page, "a", "knob-fold").select_option("lines")
    expect(knob(page, "a", "knob-fold")).to_have_value("lines")
    knob(page, "a", "knob-fold-size").fill("5")
    knob(page, "a", "knob-fold-size").press("Enter")
    expect(knob(page, "a", "knob-fold-size")).to_have_value("5")
    knob(page, "a", "knob-shown").fill("2")
    knob(page, "a", "knob-shown").press("Enter")
    for layout in ("desktop", "phone"):
        row = frame(page, "a", layout).get_by_test_id("suggestions")
        expect(row).to_have_attribute("data-style", "list")
        expect(row).to_have_attribute("data-fold-most", "2")
        expect(
            frame(page, "a", layout).locator('.chip:not([data-overflow]) [data-testid="suggestion"]')
        ).to_have_count(2)
        expect(frame(page, "a", layout).get_by_test_id("suggestions-more")).to_contain_text("+5 more")
    expect(frame(page, "b").get_by_test_id("suggestions")).to_have_attribute("data-fold-most", "0")

    # A choice in a preview is not sent: the preview says what would be.
    preview = frame(page, "b")
    preview.get_by_test_id("suggestion").first.click()
    expect(preview.get_by_test_id("preset-would-send")).to_have_text(
        "Would send suggestion 1: List the files"
    )
    # A long one opens first, then would be sent whole.
    long_one = preview.get_by_test_id("suggestion").nth(1)
    long_one.click()
    expect(long_one).to_have_attribute("data-truncated", "false")
    long_one.click()
    expect(preview.get_by_test_id("preset-would-send")).to_contain_text("so I can review it.")

    # The auto-send countdown runs on a list taken as new, and would send the first suggestion.
    preview.locator("#auto-send").check()
    preview.locator('[data-action="preset-new-list"]').click()
    expect(preview.get_by_test_id("auto-send-countdown")).to_be_visible()
    expect(preview.get_by_test_id("preset-would-send")).to_have_text(
        "Would auto-send suggestion 1: List the files", timeout=20_000
    )

    download = page.request.get(
        server.base + (page.get_by_test_id("preset-download").get_attribute("href") or "")
    )
    made = tomllib.loads(download.text())["presets"]
    assert [(p["name"], p["style"], p["shown_before_fold"]) for p in made] == [
        ("chips-a", "list", 2),
        ("list-b", "list", 0),
    ]


def test_a_knob_that_does_not_validate_says_why_and_keeps_the_preset(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.base}/presets?a_text_limit=5")
    expect(page.get_by_test_id("preset-error")).to_contain_text(
        "text_limit: Input should be greater than or equal to 20"
    )
    expect(frame(page, "a").get_by_test_id("suggestions")).to_have_attribute("data-preset", "chips")


@pytest.mark.parametrize("layout", LAYOUTS, ids=[layout.name for layout in LAYOUTS])
def test_the_preset_lab_is_accessible(browser: Browser, server: LiveServer, layout: Layout) -> None:
    context = browser.new_context(**layout.context_options())
    try:
        sign_in(context, server)
        page = context.new_page()
        page.set_default_timeout(UI_TIMEOUT_MS)
        page.goto(f"{server.base}/presets")
        expect(frame(page, "a").get_by_test_id("suggestion").first).to_be_visible()
        shoot(page, "presets/lab", layout)
    finally:
        context.close()
