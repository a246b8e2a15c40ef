"""Keyboard only, with focus asserted after each step: pick a suggestion, edit it, send it, stop the turn,
answer a permission request, switch session."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.support.layouts import DESKTOP, assert_accessible, shoot
from tests.support.live import LiveServer
from tests.support.pages import chips, open_app, prompt, user_messages


def status(page: Page, state: str) -> None:
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", state)


def test_keyboard_only_pick_edit_send_stop_answer_and_switch_session(page: Page, server: LiveServer) -> None:
    page.set_viewport_size({"width": DESKTOP.width, "height": DESKTOP.height})
    open_app(page, server)
    composer = page.get_by_test_id("composer")
    expect(composer).to_be_focused()  # the page opens with the composer focused
    page.keyboard.type("/suggest-demo short")
    page.keyboard.press("Enter")
    status(page, "ready")
    expect(chips(page)).to_have_count(4)
    expect(page.get_by_test_id("turn-announcer")).to_have_text("The agent finished its answer.")

    # Pick: Up goes to the suggestions, Right moves along them.
    page.keyboard.press("ArrowUp")
    expect(chips(page).nth(0)).to_be_focused()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(chips(page).nth(2)).to_be_focused()
    expect(chips(page).nth(2)).to_have_text("Count to 5")

    # Edit: E takes it into the composer, which has focus; the text is changed there.
    page.keyboard.press("e")
    expect(composer).to_be_focused()
    expect(composer).to_have_value("Count to 5")
    page.keyboard.press("Backspace")
    page.keyboard.type("300")

    # Send, then stop the turn with Escape: focus stays in the composer.
    page.keyboard.press("Enter")
    expect(user_messages(page)).to_have_count(2)
    expect(user_messages(page).last).to_contain_text("Count to 300")
    status(page, "working")
    page.keyboard.press("Escape")
    status(page, "ready")
    expect(composer).to_be_focused()
    expect(page.get_by_test_id("cancel")).to_have_count(0)

    # A permission request is announced and Alt+P reaches it; after the answer, focus is the composer's.
    page.keyboard.type("edit README.md")
    page.keyboard.press("Enter")
    request = page.get_by_test_id("permission")
    expect(request).to_have_attribute("data-state", "pending")
    expect(page.get_by_test_id("turn-announcer")).to_contain_text("Alt+P")
    shoot(page, "keyboard-permission", DESKTOP)
    assert_accessible(page, "a permission request")
    page.keyboard.press("Alt+p")
    expect(request.locator("button[data-option-id]").first).to_be_focused()
    page.keyboard.press("Enter")
    expect(request).not_to_have_attribute("data-state", "pending")
    status(page, "ready")
    expect(composer).to_be_focused()

    # Switch session: Ctrl+K goes to the sessions, Shift+Tab to "New session"; then back with Up/Down.
    first_url = page.url
    page.keyboard.press("Control+k")
    expect(page.locator('#sidebar .session-link a[aria-current="page"]')).to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(page.get_by_test_id("new-session")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).not_to_have_url(first_url)
    expect(page.get_by_test_id("composer")).to_be_focused()
    page.keyboard.press("Control+k")
    links = page.locator("#sidebar .session-link a")
    expect(links).to_have_count(2)
    current = page.locator('#sidebar .session-link a[aria-current="page"]')
    expect(current).to_be_focused()
    page.keyboard.press("ArrowDown")
    target = links.nth(0) if links.nth(1).get_attribute("aria-current") == "page" else links.nth(1)
    expect(target).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(re.escape(first_url) + "$"))
    expect(page.get_by_test_id("composer")).to_be_focused()
    expect(user_messages(page)).to_have_count(3)


def test_the_sessions_list_keeps_the_focus_while_its_sessions_change(page: Page, server: LiveServer) -> None:
    page.set_viewport_size({"width": DESKTOP.width, "height": DESKTOP.height})
    open_app(page, server)
    page.keyboard.press("Control+k")
    current = page.locator('#sidebar .session-link a[aria-current="page"]')
    expect(current).to_be_focused()
    # Another tab on the same session runs a turn: the sessions list is swapped as its state changes to
    # working and back, under the first tab's focus.
    other = page.context.new_page()
    other.goto(page.url)
    prompt(other, "count to 3")
    expect(other.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready", timeout=30_000)
    expect(page.get_by_test_id("session-state").first).to_have_text("ready")
    expect(current).to_be_focused()
    other.close()
