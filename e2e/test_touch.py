"""A touch-emulated phone reaches every suggestion action by tapping, each a 44 px target: Edit a
suggestion, show the next ghost text, accept it."""

from __future__ import annotations

from playwright.sync_api import Browser, Locator, Page, expect

from tests.support.browser import sign_in
from tests.support.layouts import PHONE, assert_accessible, shoot
from tests.support.live import LiveServer
from tests.support.pages import chips, open_app, prompt, user_messages


def big_enough(target: Locator) -> None:
    box = target.bounding_box()
    assert box is not None and box["width"] >= 44 and box["height"] >= 44, box


def test_tapping_only_edits_a_suggestion_and_accepts_ghost_text(browser: Browser, server: LiveServer) -> None:
    context = browser.new_context(**PHONE.context_options())
    sign_in(context, server)
    page: Page = context.new_page()
    try:
        open_app(page, server)
        prompt(page, "/suggest-demo short")
        composer = page.get_by_test_id("composer")
        edit = page.get_by_test_id("suggestion-edit").nth(1)
        expect(edit).to_be_visible()  # on touch, Edit stands beside each suggestion: no hover needed
        big_enough(edit)
        shoot(page, "touch-suggestions", PHONE)
        assert_accessible(page, "suggestions on a phone")
        edit.tap()
        expect(composer).to_have_value("What can you do?")
        expect(user_messages(page)).to_have_count(1)  # taken to edit, not sent

        composer.fill("")
        expect(chips(page).first).to_be_attached()
        page.get_by_test_id("composer-options-toggle").tap()
        page.get_by_test_id("suggestion-style").select_option("ghost")
        page.get_by_test_id("composer-options-toggle").tap()
        expect(page.get_by_test_id("ghost-entry").first).to_be_visible()
        next_one, accept = page.get_by_test_id("ghost-next"), page.get_by_test_id("ghost-accept")
        big_enough(next_one)
        big_enough(accept)
        next_one.tap()
        expect(page.get_by_test_id("ghost-bar")).to_contain_text("2/4")
        shoot(page, "touch-ghost", PHONE)
        assert_accessible(page, "ghost text on a phone")
        accept.tap()
        expect(composer).to_have_value("What can you do?")
        expect(user_messages(page)).to_have_count(1)
    finally:
        context.close()
