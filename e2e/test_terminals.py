"""Client terminals in the browser: a command's output streams into its tool-call card, then its exit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Locator, Page, expect

from tests.support.accessibility import EVERY_IMPACT, describe, load_axe
from tests.support.browser import sign_in
from tests.support.live import LiveServer, scripted_agent, serve_in_thread
from tests.support.pages import open_app
from tests.support.screenshots import screenshot

VIEWS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture
def terminal_server(e2e_workspace: Path) -> Iterator[LiveServer]:
    with serve_in_thread(scripted_agent("uses_terminals"), cwd=e2e_workspace) as live:
        yield live


def gated_command(gate: Path) -> str:
    """Prints, waits for `gate` to exist (the test creates it), prints again and fails with code 3."""
    return (
        "printf '\\033[1mcollecting\\033[0m 3 items\\n'; printf 'tests/test_cart.py ..\\n'; "
        f"while [ ! -e {gate} ]; do sleep 0.05; done; "
        "printf 'tests/test_pricing.py F\\n\\n1 failed, 2 passed\\n'; exit 3"
    )


def run_steps(page: Page, command: str) -> None:
    steps = [
        {"call": "terminal/create", "params": {"command": command}},
        {"card": "pytest -q"},
        {"call": "terminal/wait_for_exit", "params": {"terminalId": "$tid"}},
        {"call": "terminal/release", "params": {"terminalId": "$tid"}},
    ]
    composer = page.get_by_test_id("composer")
    composer.fill(json.dumps(steps))
    composer.press("Enter")


def terminal(page: Page) -> Locator:
    return page.locator('[data-testid="tool-call"] [data-testid="terminal"]')


def card_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's violations of every impact inside the tool-call cards (the rest of the page is
    checked by the page's own tests)."""
    load_axe(page)
    result = page.evaluate(
        """async () => await window.axe.run({include: [['[data-testid="tool-call"]']]},
                                            {resultTypes: ['violations']})"""
    )
    return [v for v in result["violations"] if v.get("impact") in EVERY_IMPACT]


def open_views(browser: Browser, server: LiveServer) -> list[tuple[str, Page]]:
    """The same session at desktop and phone size, light and dark, for screenshots."""
    pages = []
    for size, viewport in VIEWS.items():
        for scheme in ("light", "dark"):
            context = browser.new_context(viewport=viewport, color_scheme=scheme)  # type: ignore[arg-type]
            sign_in(context, server)  # the token link signs in only once
            view = context.new_page()
            view.set_default_timeout(30_000)
            view.goto(server.url)  # the session is mid-turn: no waiting for "ready" here
            pages.append((f"{size}-{scheme}", view))
    return pages


def test_a_terminal_commands_output_streams_into_its_card_then_its_exit(
    page: Page, browser: Browser, terminal_server: LiveServer, e2e_workspace: Path
) -> None:
    blocked: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text or "violates" in message.text:
            blocked.append(message.text)

    page.on("console", on_console)
    page.set_default_timeout(30_000)
    sign_in(page.context, terminal_server)  # the token link signs in only once: every view uses the cookie
    open_app(page, terminal_server)
    assert "style" not in page.evaluate("() => htmx.config.attributesToSettle")
    gate = e2e_workspace / "gate"
    run_steps(page, gated_command(gate))

    shown = terminal(page)
    expect(shown).to_have_attribute("data-state", "running")
    expect(shown.get_by_test_id("terminal-output")).to_contain_text("tests/test_cart.py ..")
    expect(shown.get_by_test_id("terminal-output")).not_to_contain_text("\x1b")
    expect(shown.get_by_test_id("terminal-exit")).to_contain_text("Running")
    views = open_views(browser, terminal_server)
    for name, view in views:
        expect(terminal(view)).to_have_attribute("data-state", "running")
        screenshot(view, f"terminal-running-{name}")

    gate.touch()
    expect(shown).to_have_attribute("data-state", "exited")
    expect(shown.get_by_test_id("terminal-output")).to_contain_text("1 failed, 2 passed")
    expect(shown.get_by_test_id("terminal-exit")).to_have_text("Exited with code 3")
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    for name, view in views:
        expect(terminal(view)).to_have_attribute("data-state", "exited")
        screenshot(view, f"terminal-exited-{name}")
        view.context.close()
    found = card_violations(page)
    assert not found, describe(found)
    assert not blocked, blocked


def test_the_demo_agent_runs_a_command_in_a_terminal_after_permission(page: Page, server: LiveServer) -> None:
    page.set_default_timeout(30_000)
    open_app(page, server)
    composer = page.get_by_test_id("composer")
    composer.fill("run ls src")
    composer.press("Enter")
    request = page.locator('[data-testid="permission"][data-state="pending"]')
    expect(request).to_contain_text("ls src")
    expect(terminal(page)).to_have_count(0)  # nothing runs before the user says so
    request.locator('[data-option-id="run"]').click()
    expect(terminal(page)).to_have_attribute("data-state", "exited")
    expect(terminal(page).get_by_test_id("terminal-output")).to_contain_text("cart.py")
    expect(terminal(page).get_by_test_id("terminal-exit")).to_have_text("Exited with code 0")
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    screenshot(page, "terminal-demo-agent")
