"""The sessions list tells the truth: each session's state in words, titles that are never a raw id,
each session once; on a phone it is a drawer, and the page is sized for fingers."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from tests.support.browser import sign_in
from tests.support.layouts import PHONE, Layout, assert_accessible, shoot
from tests.support.live import LiveServer
from tests.support.pages import choose_style, dismiss_chips, open_app, prompt, user_messages


def open_sessions(page: Page, layout: Layout) -> None:
    if layout.phone:
        page.get_by_test_id("sessions-toggle").click()
        expect(page.get_by_test_id("sidebar")).to_be_in_viewport()


def state_of(page: Page, local_id: str) -> str | None:
    link = page.locator(f'[data-testid="session-link"][data-local-id="{local_id}"]')
    return link.get_by_test_id("session-state").get_attribute("data-state")


def test_the_sidebar_shows_each_sessions_state_and_title_and_lists_each_session_once(
    sized_page: Page, server: LiveServer, layout: Layout
) -> None:
    page = sized_page
    open_app(page, server)
    composer = page.get_by_test_id("composer")
    composer.fill("edit src/cart.py")
    composer.press("Enter")
    expect(page.get_by_test_id("permission")).to_have_attribute("data-state", "pending")
    first_id = server.url.rsplit("/", 1)[1]  # each test gets a fresh session of the shared server
    first = page.locator(f'[data-testid="session-link"][data-local-id="{first_id}"]')
    expect(first.get_by_test_id("session-state")).to_have_attribute("data-state", "needs-answer")
    expect(first).to_contain_text("waiting for you")

    open_sessions(page, layout)
    page.get_by_test_id("new-session").click()
    expect(page).not_to_have_url(re.compile(rf"/s/{first_id}$"))
    second_id = page.url.rsplit("/", 1)[1]
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    prompt(page, "list files")
    dismiss_chips(page)
    open_sessions(page, layout)
    links = page.get_by_test_id("session-link")
    expect(links).to_have_count(2)
    expect(first.get_by_test_id("session-state")).to_have_attribute("data-state", "needs-answer")
    second = page.locator(f'[data-testid="session-link"][data-local-id="{second_id}"]')
    expect(second.get_by_test_id("session-state")).to_have_attribute("data-state", "ready")
    for link in (first, second):
        expect(link.get_by_role("link")).not_to_have_text(re.compile(r"^(Session \d+|[0-9a-f-]{16,})$"))
    assert_accessible(page, "the sidebar with several sessions")
    shoot(page, "sessions", layout)

    # Back to the first: answer it, and its state follows.
    first.get_by_role("link").click()
    expect(page).to_have_url(re.compile(rf"/s/{first_id}$"))
    page.get_by_test_id("permission").locator('[data-option-id="skip"]').click()
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    expect(first.get_by_test_id("session-state")).to_have_attribute("data-state", "ready")

    # Closed, then loaded back: listed once, titled, and ready (not stuck at "working").
    open_sessions(page, layout)
    second.get_by_test_id("close-session").click()
    expect(links).to_have_count(1)
    stored = page.get_by_test_id("stored-session")
    expect(stored).to_have_count(1)  # the open one is not listed again under the stored ones
    stored_title = stored.locator(".stored-title").inner_text().strip()
    assert stored_title and stored_title not in ("Untitled session", "New session"), stored_title
    stored.get_by_test_id("load-session").click()
    expect(page).not_to_have_url(re.compile(rf"/s/({first_id}|{second_id})$"))
    loaded_id = page.url.rsplit("/", 1)[1]
    expect(user_messages(page)).to_have_count(1)
    open_sessions(page, layout)
    loaded = page.locator(f'[data-testid="session-link"][data-local-id="{loaded_id}"]')
    expect(loaded.get_by_test_id("session-state")).to_have_attribute("data-state", "ready")
    expect(loaded.get_by_role("link")).to_have_text(stored_title)  # the title survives the load
    expect(page.get_by_test_id("stored-session")).to_have_count(0)


def test_on_a_phone_the_header_is_one_line_targets_are_finger_sized_and_hints_fit_touch(
    browser: Browser, server: LiveServer
) -> None:
    context = browser.new_context(**PHONE.context_options())
    sign_in(context, server)
    page = context.new_page()
    page.set_default_timeout(20_000)
    open_app(page, server)
    topbar = page.locator(".topbar")
    box = topbar.bounding_box()
    assert box is not None and box["height"] <= 64, box  # one line
    conversation = page.get_by_test_id("conversation").bounding_box()
    assert conversation is not None and conversation["height"] >= 844 * 0.55, conversation
    for testid in ("sessions-toggle", "header-menu", "send", "starter"):
        target = page.get_by_test_id(testid).first.bounding_box()
        assert target is not None and target["height"] >= 44 and target["width"] >= 44, (testid, target)
    placeholder = page.get_by_test_id("composer").get_attribute("placeholder") or ""
    assert "Enter" not in placeholder and "Shift" not in placeholder, placeholder
    expect(page.get_by_test_id("usage")).to_be_hidden()  # behind the menu
    page.get_by_test_id("header-menu").click()
    expect(page.get_by_test_id("mode-select")).to_be_visible()
    mode = page.get_by_test_id("mode-select").bounding_box()
    assert mode is not None and mode["height"] >= 44
    shoot(page, "menu", PHONE)
    page.get_by_test_id("header-menu").click()
    expect(page.get_by_test_id("mode-select")).to_be_hidden()

    # Suggestions as ghost text and as a list: without the key hints a touch screen has no use for.
    choose_style(page, "ghost")
    prompt(page, "list files")
    expect(page.get_by_test_id("ghost-text")).to_be_visible()
    expect(page.locator(".ghost-keys")).to_be_hidden()
    choose_style(page, "list")
    expect(page.locator(".list-keys")).to_be_hidden()

    page.get_by_test_id("sessions-toggle").click()
    expect(page.get_by_test_id("sidebar")).to_be_in_viewport()
    expect(page.get_by_test_id("sessions-toggle")).to_have_attribute("aria-expanded", "true")
    link = page.get_by_test_id("session-link").first.get_by_role("link").bounding_box()
    assert link is not None and link["height"] >= 44
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("sidebar")).not_to_be_in_viewport()
    context.close()
