"""The foundation in a real browser: sign in with the token, prompt, stream, reload mid-answer."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.support.live import LiveServer
from tests.support.pages import open_app, reload
from tests.support.screenshots import screenshot


def test_the_token_link_signs_in_and_leaves_the_address_bar(page: Page, fresh_server: LiveServer) -> None:
    page.goto(fresh_server.url)
    # `/`, or the page of the session it shows.
    expect(page).to_have_url(re.compile(rf"^{re.escape(fresh_server.base)}/(s/[^/?]+)?$"))
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready", timeout=60_000)
    expect(page.get_by_test_id("composer")).to_be_editable()


def test_a_prompt_streams_an_answer(page: Page, server: LiveServer) -> None:
    open_app(page, server)
    composer = page.get_by_test_id("composer")
    composer.fill("list files")
    composer.press("Enter")

    user = page.locator('[data-testid="message"][data-role="user"]')
    expect(user).to_have_count(1)
    expect(user).to_contain_text("list files")
    expect(composer).to_have_value("")
    answer = page.locator('[data-testid="message"][data-role="agent"]').last
    expect(answer).to_contain_text("README.md")
    expect(answer).to_contain_text("src/")
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    thought = page.locator('[data-testid="message"][data-role="thought"]').first
    expect(thought).not_to_have_attribute("open", "")
    screenshot(page, "conversation")


def test_shift_enter_adds_a_line_instead_of_sending(page: Page, server: LiveServer) -> None:
    open_app(page, server)
    composer = page.get_by_test_id("composer")
    composer.fill("first line")
    composer.press("Shift+Enter")
    composer.type("second line")
    expect(composer).to_have_value("first line\nsecond line")
    expect(page.locator('[data-testid="message"][data-role="user"]')).to_have_count(0)


def test_reload_in_the_middle_of_an_answer_shows_the_whole_transcript(page: Page, server: LiveServer) -> None:
    open_app(page, server)
    composer = page.get_by_test_id("composer")
    composer.fill("count to 60")  # 3 s at the tests' 50 ms a line: the reload lands mid-answer
    composer.press("Enter")
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "working")
    agent = page.locator('[data-testid="message"][data-role="agent"]').last
    expect(agent).to_contain_text("3")

    reload(page)
    expect(page.locator('[data-testid="message"][data-role="user"]')).to_contain_text("count to 60")
    # The answer goes on streaming into the reloaded page and ends complete.
    expect(page.locator('[data-testid="message"][data-role="agent"]').last).to_contain_text(
        "60", timeout=20_000
    )
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")


def test_cancel_stops_a_running_turn(page: Page, server: LiveServer) -> None:
    open_app(page, server)
    composer = page.get_by_test_id("composer")
    composer.fill("count to 200")
    composer.press("Enter")
    cancel = page.get_by_test_id("cancel")
    expect(cancel).to_be_visible()
    cancel.click()
    expect(page.get_by_test_id("notice").last).to_contain_text("cancelled")
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    expect(page.get_by_test_id("cancel")).to_have_count(0)


def test_hostile_page_loads_no_inline_script_and_sends_security_headers(
    page: Page, server: LiveServer
) -> None:
    violations: list[str] = []
    page.on(
        "console", lambda msg: violations.append(msg.text) if "Content Security Policy" in msg.text else None
    )
    response = page.goto(server.url)
    assert response is not None
    final = page.request.get(server.base + "/")
    csp = final.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    assert violations == []
