"""What the browser tests do on the page and read from it, as a user would: open it, prompt, find the
messages and suggestions, read what the agent received."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Locator, Page, WebSocketRoute, expect

from tests.support.live import LiveServer


def open_app(page: Page, server: LiveServer) -> None:
    """Open the server's address (a token link or a session page) and wait until the agent is ready."""
    page.goto(server.url)
    expect(page).not_to_have_url(re.compile(r"token="))  # a token never stays in the address bar
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    synced(page)


def synced(page: Page) -> None:
    """Wait for the page's live socket to bring its first snapshot: until then, what the server rendered
    into the page is replaced as it arrives, and an element a test holds may be gone under it."""
    expect(page.locator("body")).to_have_attribute("data-synced", re.compile(r"^\d+$"))


def reload(page: Page) -> None:
    """Reload the page as its user would, and wait for its live socket's snapshot (see `synced`)."""
    page.reload()
    synced(page)


def sockets_through(page: Page) -> list[WebSocketRoute]:
    """Route the page's live sockets through to the server, and list each as it opens (the newest last),
    so a test can drop one as a network would; everything else stays the real server's.

    A routed frame passes through this process, and Playwright's sync API moves it on only while the test
    is inside a Playwright call: a test that sleeps blind holds every frame meanwhile, and the page looks
    stuck (its "working…" after a turn ended) though the server sent it all. Wait with `expect`."""
    sockets: list[WebSocketRoute] = []

    def through(route: WebSocketRoute) -> None:
        route.connect_to_server()
        sockets.append(route)

    page.route_web_socket(re.compile(r"/ws(/|$)"), through)
    return sockets


def sockets_losing(page: Page, lose: Callable[[str], bool]) -> None:
    """Route the page's live sockets through the test, which passes each frame from the server on to the
    page but those `lose` says to lose on the way (as a network would); what the page sends goes through."""

    def through(route: WebSocketRoute) -> None:
        server = route.connect_to_server()
        server.on_message(lambda message: None if lose(str(message)) else route.send(message))

    page.route_web_socket(re.compile(r"/ws(/|$)"), through)


def choose_style(page: Page, style: str) -> None:
    """Present suggestions as `style` (chips, list, ghost), through the composer's options menu where the
    composer is narrow (a phone), as a user would."""
    toggle = page.get_by_test_id("composer-options-toggle")
    if toggle.is_visible():
        toggle.click()
    page.get_by_test_id("suggestion-style").select_option(style)
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") == "true":
        toggle.click()
    expect(page.get_by_test_id("suggestions")).to_have_attribute("data-style", style)


def user_messages(page: Page) -> Locator:
    return page.locator('[data-testid="message"][data-role="user"]')


def agent_messages(page: Page) -> Locator:
    return page.locator('[data-testid="message"][data-role="agent"]')


def chips(page: Page) -> Locator:
    return page.get_by_test_id("suggestion")


def prompt(page: Page, text: str) -> None:
    """Send `text` from the composer and wait until the turn is over."""
    before = user_messages(page).count()
    composer = page.get_by_test_id("composer")
    composer.fill(text)
    composer.press("Enter")
    expect(user_messages(page)).to_have_count(before + 1)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")


def suggest(page: Page, *prompts: list[dict[str, Any]]) -> None:
    """Have the demo agent offer exactly these prompts (each a list of content blocks), and wait until the
    page has them: they come a moment after the turn ends, often in a frame of their own."""
    prompt(page, "/suggest " + json.dumps([{"prompt": blocks} for blocks in prompts]))
    expect(page.locator('#suggestions [data-testid="suggestion"]')).to_have_count(len(prompts))


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def prompts_received(page: Page, server: LiveServer) -> list[list[dict[str, Any]]]:
    """The `prompt` of every `session/prompt` the agent received, from the protocol log (JSONL)."""
    href = page.get_by_test_id("inspector-download").get_attribute("href") or ""
    body = page.request.get(server.base + href + "?method=session/prompt").text()
    entries = [json.loads(line) for line in body.splitlines() if line.strip()]
    return [
        e["message"]["params"]["prompt"]
        for e in entries
        if e["message"].get("method") == "session/prompt" and "params" in e["message"]
    ]


def dismiss_chips(page: Page) -> None:
    """Hide the suggestion row (Escape): its presentation is judged with the suggestions' own tests."""
    expect(page.get_by_test_id("suggestion").first).to_be_visible()
    page.get_by_test_id("composer").press("Escape")
    expect(page.get_by_test_id("suggestions")).to_be_hidden()


def in_view(page: Page, locator: Locator) -> bool:
    """Whether the element's box lies inside the viewport (not merely in the document)."""
    box = locator.bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    return box["y"] >= 0 and box["y"] + box["height"] <= size["height"] + 1
