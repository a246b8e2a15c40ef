"""The preset lab in a real browser: two live previews side by side, knobs that change one preset's
previews and not the other's, a choice that shows what it would send, and the presets as a file; a third
preset added and removed; a pasted list previewed with its diagnostics marked in every preview; axe-clean
in light and dark on a desktop and a phone."""

from __future__ import annotations

import json
import re
import tomllib

import pytest
from playwright.sync_api import Browser, FrameLocator, Page, expect

from tests.support.browser import UI_TIMEOUT_MS, sign_in
from tests.support.layouts import LAYOUTS, Layout, shoot
from tests.support.live import LiveServer

# A pasted list with a hostile suggestion: a zero-width space hidden in its text.
HOSTILE = json.dumps(
    {
        "suggestions": [
            {"prompt": [{"type": "text", "text": "List the files"}]},
            {"prompt": [{"type": "text", "text": "Say hi\u200b now"}]},
        ]
    }
)


def paste(page: Page, text: str) -> None:
    page.get_by_test_id("preset-paste-input").fill(text)
    page.get_by_test_id("preset-apply").click()


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
    # The lab is replaced by the server's answer: typing into a field as it is replaced would go to the
    # new field's start ("5" before its "2"). The address takes the knobs once the answer is in.
    expect(page).to_have_url(re.compile(r"a_fold=lines"))
    knob(page, "a", "knob-fold-size").fill("5")
    knob(page, "a", "knob-fold-size").press("Enter")
    expect(knob(page, "a", "knob-fold-size")).to_have_value("5")
    expect(page).to_have_url(re.compile(r"a_fold_size=5"))
    knob(page, "a", "knob-shown").fill("2")
    knob(page, "a", "knob-shown").press("Enter")
    expect(page).to_have_url(re.compile(r"a_shown_before_fold=2"))
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


def test_the_placement_knob_shows_the_list_under_a_sample_answer_in_both_previews(
    page: Page, server: LiveServer
) -> None:
    page.goto(f"{server.base}/presets")
    knob(page, "b", "knob-placement").select_option("under_answer")
    for layout in ("desktop", "phone"):
        preview = frame(page, "b", layout)
        expect(preview.get_by_test_id("suggestions")).to_have_attribute("data-placement", "under_answer")
        # The area moved out of the composer into the slot under the sample answer, and works there.
        expect(
            preview.locator('[data-role="suggestions-under-answer"] [data-testid="suggestions-area"]')
        ).to_be_visible()
        expect(preview.locator('.composer-area [data-testid="suggestions-area"]')).to_have_count(0)
    preview = frame(page, "b")
    preview.get_by_test_id("suggestion").first.click()
    expect(preview.get_by_test_id("preset-would-send")).to_have_text(
        "Would send suggestion 1: List the files"
    )
    # Ghost text has one place: the knob offers only the composer.
    knob(page, "b", "knob-style").select_option("ghost")
    expect(knob(page, "b", "knob-placement").locator("option")).to_have_count(1)
    expect(frame(page, "b").get_by_test_id("suggestions")).to_have_attribute("data-placement", "in_composer")


def test_a_knob_that_does_not_validate_says_why_and_keeps_the_preset(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.base}/presets?a_text_limit=5")
    expect(page.get_by_test_id("preset-error")).to_contain_text(
        "text_limit: Input should be greater than or equal to 20"
    )
    expect(frame(page, "a").get_by_test_id("suggestions")).to_have_attribute("data-preset", "chips")


def test_a_pasted_list_shows_its_diagnostics_marked_in_every_preview_of_two_or_three_presets(
    page: Page, server: LiveServer
) -> None:
    page.goto(f"{server.base}/presets")
    page.get_by_test_id("preset-add").click()
    expect(page.get_by_test_id("preset-side")).to_have_count(3)
    expect(frame(page, "c").get_by_test_id("suggestions")).to_have_attribute("data-style", "ghost")
    paste(page, HOSTILE)

    hidden = page.locator('[data-testid="playground-diagnostic"][data-kind="hidden"]')
    expect(hidden).to_have_attribute("data-suggestion", "2")
    expect(hidden).to_contain_text("suggestion 2 has 1 hidden character")
    expect(page.get_by_test_id("playground-count")).to_have_text("2 suggestions offered.")
    for side in ("a", "b", "c"):
        for layout in ("desktop", "phone"):
            preview = frame(page, side, layout)
            # Marked where it shows (the ghost text's entry too), and no other suggestion is.
            expect(preview.locator('[data-diagnosed="2"][data-index="1"]').first).to_be_attached()
            expect(preview.locator('[data-diagnosed]:not([data-index="1"])')).to_have_count(0)
            if side != "c":  # the ghost text shows one suggestion at a time; chips and lists show both
                expect(preview.get_by_test_id("suggestion")).to_have_count(2)
                expect(preview.locator('[data-diagnosed="2"]').get_by_test_id("suggestion")).to_be_visible()

    # A knob still changes one preset's previews, over the pasted list, which stays in its box.
    knob(page, "b", "knob-density").select_option("compact")
    expect(frame(page, "b").get_by_test_id("suggestions")).to_have_attribute("data-density", "compact")
    expect(frame(page, "a").get_by_test_id("suggestions")).not_to_have_attribute("data-density", "compact")
    expect(frame(page, "b").locator('[data-diagnosed="2"]').get_by_test_id("suggestion")).to_be_visible()
    expect(page.get_by_test_id("preset-paste-input")).to_have_value(HOSTILE)

    page.get_by_test_id("preset-remove").click()
    expect(page.get_by_test_id("preset-side")).to_have_count(2)
    expect(page.locator('[data-testid="preset-frame"][data-side="c"]')).to_have_count(0)


def test_a_paste_that_is_no_list_says_why_and_keeps_the_text(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.base}/presets")
    paste(page, '{"suggestions": 5')
    expect(page.get_by_test_id("preset-paste-error")).to_be_visible()
    expect(page.get_by_test_id("preset-paste-input")).to_have_value('{"suggestions": 5')
    expect(frame(page, "a").get_by_test_id("suggestion")).to_have_count(7)  # the sample list


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
        page.get_by_test_id("preset-add").click()
        expect(page.get_by_test_id("preset-side")).to_have_count(3)
        paste(page, HOSTILE)
        expect(frame(page, "c").locator("[data-diagnosed]").first).to_be_attached()
        page.get_by_test_id("playground-diagnostics").evaluate("list => list.scrollIntoView()")
        shoot(page, "presets/lab-paste", layout)
    finally:
        context.close()
