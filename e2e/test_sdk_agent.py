"""The agent built on the official ACP TypeScript SDK (`tests/peers/sdk_agent.mjs`), in a real browser,
in ACP v1 and v2, over stdio and as a remote agent behind the SDK's own `AcpServer` in both profiles
(WebSocket, Streamable HTTP): a conversation with suggestions, a permission, and a stored session that
comes back and is deleted. One server per version and transport, each with its own store of the agent's
sessions."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.support.browser import AGENT_STARTUP_TIMEOUT, open_signed_in
from tests.support.layouts import Layout, assert_accessible, shoot
from tests.support.live import LiveServer, serve_in_thread
from tests.support.pages import agent_messages, user_messages
from tests.support.remote_agents import running
from tests.support.remote_agents import sdk_server as sdk_remote_server
from tests.support.sdk_peer import sdk_agent_command

LIST_TIMEOUT_MS = 30_000


@pytest.fixture(scope="module", params=["1", "2"], ids=["v1", "v2"])
def sdk_version(request: pytest.FixtureRequest) -> str:
    """The ACP version this module's server speaks with the SDK agent (`--protocol`)."""
    return str(request.param)


@pytest.fixture(scope="module", params=["stdio", "ws", "http"])
def sdk_transport(request: pytest.FixtureRequest) -> str:
    """How this module's server reaches the SDK agent: its stdio, or the SDK's server (ws:// or http://)."""
    return str(request.param)


@pytest.fixture(scope="module")
def sdk_server(
    sdk_version: str, sdk_transport: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    workspace = tmp_path_factory.mktemp(f"sdk-v{sdk_version}-{sdk_transport}")
    store = workspace / "sessions.json"
    command = sdk_agent_command()
    with contextlib.ExitStack() as stack:
        agent = command
        if sdk_transport != "stdio":
            # On loopback, as trusted as a local agent, so that the same tests run (terminals included).
            remote = stack.enter_context(running(sdk_remote_server(store)))
            config = workspace / "settings.json"
            entry = {"url": remote.url(sdk_transport), "localTools": True}
            config.write_text(json.dumps({"agent_servers": {"sdk": entry}}), encoding="utf-8")
            agent = "sdk"
        live = stack.enter_context(
            serve_in_thread(
                agent=agent,
                cwd=workspace,
                extra_args=[
                    "--protocol",
                    sdk_version,
                    *(["--config", str(config)] if agent == "sdk" else []),
                ],
                agent_env={"SDK_AGENT_STORE": str(store)},
                startup_timeout=AGENT_STARTUP_TIMEOUT,
            )
        )
        yield live


@pytest.fixture
def sdk_page(browser: Browser, sdk_server: LiveServer) -> Iterator[Page]:
    context = browser.new_context()
    page = context.new_page()
    open_signed_in(page, sdk_server)
    expect(page.get_by_test_id("agent-status")).to_have_attribute(
        "data-state", "ready", timeout=AGENT_STARTUP_TIMEOUT * 1000
    )
    yield page
    context.close()


def open_new_session(page: Page) -> None:
    """Click New session and wait for the page of the new one: the old one's "ready" must not pass for it."""
    before = page.url
    page.get_by_test_id("new-session").click()
    page.wait_for_url(lambda url: url != before)


def send(page: Page, text: str) -> None:
    composer = page.get_by_test_id("composer")
    composer.fill(text)
    composer.press("Enter")


def test_a_turn_with_the_sdk_agent_offers_its_suggestions_and_sends_a_chosen_one(
    sdk_page: Page, sdk_version: str
) -> None:
    page = sdk_page
    version = sdk_version
    open_new_session(page)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    expect(page.get_by_test_id("protocol-version")).to_have_attribute("data-version", version)
    send(page, "hello")
    expect(agent_messages(page).last).to_contain_text("You said: hello")
    chips = page.locator('#suggestions [data-testid="suggestion"]')
    expect(chips).to_have_count(2)
    expect(chips.first).to_contain_text("Tell me more")
    assert_accessible(page, f"the SDK agent's suggestions in ACP v{version}")
    chips.first.click()
    expect(user_messages(page)).to_have_count(2)
    expect(agent_messages(page).last).to_contain_text("You said: Tell me more")
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")


def test_the_sdk_agents_permission_request_is_answered_from_the_page(sdk_page: Page) -> None:
    page = sdk_page
    open_new_session(page)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    send(page, "permission")
    permission = page.get_by_test_id("permission")
    expect(permission).to_have_attribute("data-state", "pending")
    permission.locator('[data-option-id="allow"]').click()
    expect(permission).to_have_attribute("data-state", "answered")
    expect(agent_messages(page).last).to_contain_text("Edited notes.txt.")


def test_a_closed_sdk_session_comes_back_with_its_history_and_can_be_deleted(sdk_page: Page) -> None:
    page = sdk_page
    open_new_session(page)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    send(page, "keep this one")
    expect(agent_messages(page).last).to_contain_text("You said: keep this one")
    open_new_session(page)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    page.get_by_test_id("session-link").filter(has_text="keep this one").get_by_test_id(
        "close-session"
    ).click()

    stored = page.get_by_test_id("stored-session").filter(has_text="keep this one")
    expect(stored).to_have_count(1, timeout=LIST_TIMEOUT_MS)
    stored.get_by_test_id("load-session").click()
    expect(user_messages(page).first).to_contain_text("keep this one")
    expect(agent_messages(page).first).to_contain_text("You said: keep this one")

    page.get_by_test_id("session-link").filter(has_text="keep this one").get_by_test_id(
        "close-session"
    ).click()
    expect(stored).to_have_count(1, timeout=LIST_TIMEOUT_MS)
    stored.get_by_test_id("delete-session").locator("summary").click()
    stored.get_by_test_id("confirm-delete").click()
    expect(stored).to_have_count(0, timeout=LIST_TIMEOUT_MS)


# Notices with a severity, compactions and background work are ACP v2's: this test runs on v2 alone.
@pytest.mark.parametrize("sdk_version", ["2"], ids=["v2"], indirect=True)
def test_v2_notices_a_compaction_and_background_work_that_the_page_stops(
    sdk_page: Page, layout: Layout
) -> None:
    page = sdk_page
    page.set_viewport_size({"width": layout.width, "height": layout.height})
    send(page, "notice")
    notice = page.get_by_test_id("notice").filter(has_text="Rate limit close").last
    expect(notice).to_have_attribute("data-level", "warning")
    expect(notice.get_by_test_id("notice-description")).to_have_text("80% of this hour's requests are used.")
    send(page, "compact")
    expect(page.get_by_test_id("notice").filter(has_text="compacted the conversation").last).to_be_visible()

    send(page, "background")
    items = page.get_by_test_id("background-item")
    expect(items).to_have_count(2)
    expect(items.first).to_contain_text("tail -f build.log")
    expect(items.nth(1)).to_contain_text("sleep 600")
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    assert_accessible(page, "background work with Stop buttons")
    shoot(page, "acp-v2/background-work", layout)
    items.first.get_by_test_id("stop-work").click()  # terminal/cancel
    expect(items).to_have_count(1)
    card = page.locator('[data-testid="tool-call"]').filter(has_text="sleep 600").last
    card.get_by_test_id("stop-tool-call").click()  # tool_call/cancel, from the card this time
    expect(card).to_have_attribute("data-status", "cancelled")
    expect(page.get_by_test_id("background")).to_be_hidden()
