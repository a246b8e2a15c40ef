"""Tool calls, the plan, permission requests and file writes, shown by the demo agent's `edit`."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Locator, Page, expect

from tests.support.browser import open_signed_in, signed_in_page
from tests.support.live import LiveServer
from tests.support.pages import open_app
from tests.support.screenshots import screenshot

MARK = "# reviewed by the demo agent"


def send(page: Page, text: str) -> None:
    composer = page.get_by_test_id("composer")
    composer.fill(text)
    composer.press("Enter")


def pending(page: Page) -> Locator:
    return page.locator('[data-testid="permission"][data-state="pending"]')


def test_edit_shows_plan_tool_cards_with_a_diff_and_asks_before_writing(
    page: Page, server: LiveServer, e2e_workspace: Path
) -> None:
    open_app(page, server)
    send(page, "edit src/cart.py")

    request = pending(page)
    expect(request).to_have_count(1)
    expect(request).to_contain_text("cart.py")
    options = request.locator("[data-option-id]")
    expect(options.first).to_be_visible()
    expect(page.get_by_test_id("plan")).to_be_visible()
    edit_card = page.locator('[data-testid="tool-call"][data-kind="edit"]')
    expect(edit_card.locator(".diff-add")).to_contain_text(MARK)
    screenshot(page, "permission")

    request.locator('[data-option-id][data-kind="allow_once"]').click()
    expect(page.locator('[data-testid="permission"][data-state="answered"]')).to_have_count(1)
    expect(page.get_by_test_id("file-write")).to_contain_text("cart.py")
    expect(edit_card).to_have_attribute("data-status", "completed")
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    assert MARK in (e2e_workspace / "src" / "cart.py").read_text()
    screenshot(page, "tool-calls")


def test_answering_a_permission_keeps_the_conversation_following_to_the_answer(
    page: Page, server: LiveServer
) -> None:
    # Answered, the request above shrinks to its choice while the answer streams in below it: the view
    # stays at the bottom, with no "Latest" button, as if nothing moved.
    open_app(page, server)
    send(page, "edit src/cart.py")
    pending(page).locator('[data-option-id][data-kind="allow_once"]').click()
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    answer = page.locator('[data-testid="message"][data-role="agent"]').last
    expect(answer).to_contain_text("now ends with")
    expect(answer).to_be_in_viewport()
    expect(page.get_by_test_id("jump-latest")).to_be_hidden()


def test_rejecting_leaves_the_file_alone(page: Page, server: LiveServer, e2e_workspace: Path) -> None:
    before = (e2e_workspace / "src" / "cart.py").read_text()
    open_app(page, server)
    send(page, "edit src/cart.py")
    pending(page).locator('[data-option-id][data-kind="reject_once"]').click()
    expect(page.locator('[data-testid="tool-call"][data-kind="edit"]')).to_have_attribute(
        "data-status", "failed"
    )
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    assert (e2e_workspace / "src" / "cart.py").read_text() == before
    expect(page.get_by_test_id("file-write")).to_have_count(0)


def test_a_pending_request_shows_in_every_tab_and_one_answer_resolves_it_everywhere(
    browser: Browser, page: Page, server: LiveServer
) -> None:
    open_app(page, server)
    send(page, "edit README.md")
    expect(pending(page)).to_have_count(1)

    other = signed_in_page(browser, server)
    open_app_waiting(other, server)
    expect(pending(other)).to_have_count(1)  # a tab that (re)connects still sees the pending request
    pending(other).locator('[data-option-id][data-kind="allow_once"]').click()

    expect(pending(page)).to_have_count(0)
    expect(page.locator('[data-testid="permission"][data-state="answered"]')).to_have_count(1)
    other.context.close()


def test_cancel_while_a_request_is_pending_answers_it_cancelled(page: Page, server: LiveServer) -> None:
    open_app(page, server)
    send(page, "edit README.md")
    expect(pending(page)).to_have_count(1)
    page.get_by_test_id("cancel").click()
    expect(page.locator('[data-testid="permission"][data-state="cancelled"]')).to_have_count(1)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    expect(page.get_by_test_id("file-write")).to_have_count(0)


def open_app_waiting(page: Page, server: LiveServer) -> None:
    """Open the app while a turn runs (the status is `working`, not `ready`)."""
    open_signed_in(page, server)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "working")
