"""The suggestions playground in a real browser: reached from the header, a pasted list shown in every
style, light and dark, desktop and phone; no console error under the strict CSP, axe clean in both
schemes; the share link carries the list in its fragment; Send to session offers it for real."""

from __future__ import annotations

import base64
import json

from playwright.sync_api import Page, expect

from tests.support.console import watch_problems
from tests.support.layouts import Layout, assert_accessible, shoot
from tests.support.live import LiveServer

LISTING = [
    {"prompt": [{"type": "text", "text": "Explain the README"}]},
    {"prompt": [{"type": "text", "text": "Open "}, {"type": "resource_link", "name": "app.py", "uri": "file:///shop/notes.txt"}]},
    {"prompt": [{"type": "text", "text": "Say hi\u200b now"}]},
    {"prompt": [{"type": "text", "text": "  "}]},
]  # fmt: skip


def show(page: Page, text: str) -> None:
    page.get_by_test_id("playground-input").fill(text)
    page.get_by_test_id("playground-show").click()
    expect(page.get_by_test_id("playground-frame")).to_have_count(12)


def test_the_header_leads_to_the_playground_which_shows_a_list_in_every_style(
    sized_page: Page, layout: Layout, server: LiveServer
) -> None:
    problems = watch_problems(sized_page)
    sized_page.goto(server.url)
    if layout.phone:
        sized_page.get_by_test_id("header-menu").click()
    sized_page.get_by_test_id("playground-link").click()
    expect(sized_page.get_by_test_id("playground")).to_be_visible()
    show(sized_page, json.dumps(LISTING))

    kinds = sized_page.get_by_test_id("playground-diagnostic")
    expect(kinds).to_have_count(6)  # a skip, two about the link (misnamed, outside), hidden, two auto-send
    expect(sized_page.get_by_test_id("playground-count")).to_have_text("3 suggestions offered.")
    frame = sized_page.frame_locator('[data-style="chips"][data-layout="phone"][data-scheme="dark"]')
    expect(frame.get_by_test_id("suggestion")).to_have_count(3)
    background = frame.locator("html").evaluate("h => getComputedStyle(h).backgroundColor")
    assert background == "rgb(23, 24, 27)"  # the dark --bg, whatever the system's scheme
    shoot(sized_page, "playground/list", layout)
    assert_accessible(sized_page, "the playground with a list")
    assert problems == []


def test_the_share_link_holds_the_list_and_opens_it_again(page: Page, server: LiveServer) -> None:
    problems = watch_problems(page)
    page.goto(f"{server.base}/playground")
    page.get_by_test_id("playground-type").and_(page.locator('[data-type="image"]')).check()
    show(page, json.dumps(LISTING[:1]))
    link = page.get_by_test_id("playground-share")
    expect(link).to_be_visible()
    href = link.get_attribute("href") or ""
    assert href.startswith("/playground#v=1&t=") and "types=image" in href
    assert "README" not in href  # encoded, and only in the fragment

    other = page.context.new_page()
    other.goto(server.base + href)
    expect(other.get_by_test_id("playground-frame")).to_have_count(12)
    expect(other.get_by_test_id("playground-input")).to_have_value(json.dumps(LISTING[:1]))
    expect(other.locator('[data-type="image"]')).to_be_checked()
    assert problems == []


def test_invalid_input_says_what_is_wrong_and_keeps_the_text(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.base}/playground")
    page.get_by_test_id("playground-input").fill("{not json")
    page.get_by_test_id("playground-show").click()
    expect(page.get_by_test_id("playground-error")).to_contain_text("that is not JSON")
    expect(page.get_by_test_id("playground-input")).to_have_value("{not json")
    assert_accessible(page, "the playground with an error")


def test_send_to_session_opens_a_demo_session_offering_the_list(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.base}/playground")
    page.get_by_test_id("playground-input").fill(
        json.dumps([{"prompt": [{"type": "text", "text": "hello"}]}])
    )
    page.get_by_test_id("playground-send").click()
    page.wait_for_url("**/s/*")
    chip = page.get_by_test_id("suggestion")
    expect(chip).to_have_text("hello")
    chip.click()
    expect(page.get_by_test_id("message").and_(page.locator('[data-role="user"]'))).to_contain_text("hello")


def test_a_large_shared_link_is_filled_in_but_shown_only_when_asked(page: Page, server: LiveServer) -> None:
    problems = watch_problems(page)
    listing = [{"prompt": [{"type": "text", "text": f"Suggestion {i} " + "x" * 3000}]} for i in range(80)]
    text = json.dumps(listing)
    encoded = base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")
    page.goto(f"{server.base}/playground#v=1&t={encoded}&types=")
    expect(page.get_by_test_id("playground-large")).to_be_visible()
    expect(page.get_by_test_id("playground-large")).to_contain_text(f"{len(text):,}")
    expect(page.get_by_test_id("playground-input")).to_have_value(text)
    expect(page.get_by_test_id("playground-frame")).to_have_count(0)
    assert_accessible(page, "the playground with a large link waiting")
    page.get_by_test_id("playground-show").click()
    expect(page.get_by_test_id("playground-frame")).to_have_count(12)
    assert problems == []


def test_the_previews_mark_the_suggestion_each_diagnostic_names(
    sized_page: Page, layout: Layout, server: LiveServer
) -> None:
    sized_page.goto(f"{server.base}/playground")
    show(sized_page, json.dumps(LISTING))
    hidden = sized_page.locator('[data-testid="playground-diagnostic"][data-kind="hidden"]')
    expect(hidden).to_have_attribute("data-suggestion", "3")
    frame = sized_page.frame_locator('[data-style="chips"][data-layout="desktop"][data-scheme="light"]')
    marked = frame.locator('[data-diagnosed="3"]').first
    expect(marked).to_be_visible()
    assert marked.evaluate("e => getComputedStyle(e).outlineStyle") == "dashed"
    assert marked.evaluate("e => getComputedStyle(e, '::before').content") == '"3"'
    sized_page.locator('[data-style="chips"][data-scheme="light"]').first.scroll_into_view_if_needed()
    shoot(sized_page, "playground/marked", layout)
