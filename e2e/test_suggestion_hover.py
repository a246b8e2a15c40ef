"""With a mouse, a suggestion's Edit shows on hover without crossing the suggestion's border (above a
chip, beside a list's line), and a collapsed suggestion says in plain words what its click does."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.support.layouts import DESKTOP, shoot
from tests.support.live import LiveServer
from tests.support.pages import chips, choose_style, open_app, suggest, text


@pytest.mark.parametrize("style", ["chips", "list"])
def test_edit_shows_on_hover_without_crossing_the_suggestions_border(
    page: Page, server: LiveServer, style: str
) -> None:
    page.set_viewport_size({"width": DESKTOP.width, "height": DESKTOP.height})
    open_app(page, server)
    suggest(page, [text("List files")], [text("What can you do?")])
    choose_style(page, style)
    chip = chips(page).nth(1)
    chip.hover()
    edit = page.get_by_test_id("suggestion-edit").nth(1)
    expect(edit).to_be_visible()
    expect(edit.locator("xpath=..")).to_have_css("opacity", "1")
    button, label = chip.bounding_box(), edit.locator("xpath=..").bounding_box()
    assert button is not None and label is not None
    inside_x = label["x"] < button["x"] + button["width"] and label["x"] + label["width"] > button["x"]
    inside_y = label["y"] < button["y"] + button["height"] and label["y"] + label["height"] > button["y"]
    assert not (inside_x and inside_y), f"Edit {label} lies across the suggestion {button}"
    edit.click()
    expect(page.get_by_test_id("composer")).to_have_value("What can you do?")
    shoot(page, f"hover-edit-{style}", DESKTOP)


def test_a_collapsed_suggestion_says_in_plain_words_that_its_click_reads_it(
    page: Page, server: LiveServer
) -> None:
    open_app(page, server)
    suggest(page, [text("Explain this: " + "word " * 80)])
    first = chips(page).first
    expect(first).to_have_attribute("data-truncated", "true")
    mark = first.evaluate("el => getComputedStyle(el, '::after').content")
    assert "Read all" in mark and "↑" not in mark and "Open" not in mark, mark
