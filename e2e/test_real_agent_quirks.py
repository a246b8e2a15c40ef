"""What real agents send, in the browser: one Mode selector, no empty bubble, output streamed in `_meta`,
and a permission request's own diff and line-less location."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Locator, Page, expect

from tests.support.browser import sign_in
from tests.support.live import LiveServer, scripted_agent, serve_in_thread
from tests.support.pages import open_app
from tests.support.screenshots import screenshot

VIEWS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture
def quirks_server(e2e_workspace: Path) -> Iterator[LiveServer]:
    with serve_in_thread(scripted_agent("real_agent_quirks"), cwd=e2e_workspace) as live:
        yield live


def pending(page: Page) -> Locator:
    return page.locator('[data-testid="permission"][data-state="pending"]')


def csp_reports(page: Page) -> list[str]:
    blocked: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            blocked.append(message.text)

    page.on("console", on_console)
    return blocked


def test_one_mode_selector_meta_output_a_permissions_diff_and_no_empty_bubble(
    page: Page, browser: Browser, quirks_server: LiveServer
) -> None:
    page.set_default_timeout(30_000)
    blocked = csp_reports(page)
    sign_in(page.context, quirks_server)  # the token link signs in only once: every view uses the cookie
    open_app(page, quirks_server)
    selectors = page.locator('[data-testid="mode-select"], [data-testid="config-option"]')
    expect(selectors).to_have_count(1)
    expect(page.get_by_test_id("config-option")).to_have_attribute("data-option-id", "mode")
    composer = page.get_by_test_id("composer")
    composer.fill("go")
    composer.press("Enter")

    request = pending(page)
    # The request's tool call fills in its card (which shows the proposed diff, once) right above it.
    proposed = page.get_by_test_id("diff").filter(has_text="remember the oat milk")
    expect(proposed).to_have_count(1)
    edit = page.locator('[data-testid="tool-call"]').filter(has=proposed)
    expect(edit).to_have_attribute("data-tool-call-id", request.get_attribute("data-tool-call-id") or "")
    expect(request.locator(".tool-locations")).to_have_text("/w/notes.txt")
    card = page.locator('[data-testid="tool-call"][data-kind="execute"]')
    expect(card.get_by_test_id("terminal-output")).to_have_text(".\n..\nREADME.md\nsrc\n")
    expect(card.get_by_test_id("terminal-exit")).to_have_text("Exited with code 0")
    expect(page.locator('[data-testid="message"][data-role="agent"]')).to_have_count(0)
    request.scroll_into_view_if_needed()
    screenshot(page, "real-agent-quirks-desktop-light")

    for size, viewport in VIEWS.items():
        for scheme in ("light", "dark"):
            if (size, scheme) == ("desktop", "light"):
                continue
            context = browser.new_context(viewport=viewport, color_scheme=scheme)  # type: ignore[arg-type]
            sign_in(context, quirks_server)  # the token link signs in only once
            view = context.new_page()
            view.set_default_timeout(30_000)
            view.goto(quirks_server.url)  # the same session, its request still pending
            expect(view.get_by_test_id("diff").filter(has_text="remember the oat milk")).to_be_visible()
            # One step, not resolve-then-scroll: a late frame may swap the element in between.
            expect(pending(view)).to_be_visible()
            pending(view).evaluate("element => element.scrollIntoView({block: 'nearest'})")
            screenshot(view, f"real-agent-quirks-{size}-{scheme}")
            context.close()

    request.locator('[data-option-id="allow"]').click()
    agent = page.locator('[data-testid="message"][data-role="agent"]')
    expect(agent).to_have_text(["Agent done"], use_inner_text=True)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    assert not blocked, blocked
