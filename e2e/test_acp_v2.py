"""A whole demo session in ACP v2, in a real browser: the same experience as v1, and the version said.

The module's server runs with `--protocol 2`; everything else is as in the other browser tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.support.browser import AGENT_STARTUP_TIMEOUT, open_signed_in, own_demo_server
from tests.support.layouts import Layout, assert_accessible, shoot
from tests.support.live import LiveServer, scripted_agent, serve_in_thread
from tests.support.pages import agent_messages, open_app, reload, synced, user_messages
from tests.support.screenshots import screenshot

# The stored sessions come from the agent's session/list after each close: on a busy machine, a while.
LIST_TIMEOUT_MS = 30_000


# This module's own workspace and server, beside the shared one: it speaks ACP v2 with the demo agent.
shop, demo_state, shared_server = own_demo_server("v2", "--protocol", "2")


@contextmanager
def page_of_its_own(browser: Browser, workspace: Path, agent: str, protocol: str) -> Iterator[Page]:
    """A page signed in to a server of its own that runs the scripted `agent` with `--protocol`, once the
    agent is ready; closed after the block."""
    with serve_in_thread(
        agent=scripted_agent(agent),
        cwd=workspace,
        extra_args=["--protocol", protocol],
        startup_timeout=AGENT_STARTUP_TIMEOUT,
    ) as live:
        context = browser.new_context()
        page = context.new_page()
        try:
            open_signed_in(page, live)
            expect(page.get_by_test_id("agent-status")).to_have_attribute(
                "data-state", "ready", timeout=AGENT_STARTUP_TIMEOUT * 1000
            )
            yield page
        finally:
            context.close()


def send(page: Page, text: str) -> None:
    composer = page.get_by_test_id("composer")
    composer.fill(text)
    composer.press("Enter")


def test_a_v2_session_streams_offers_chips_and_sends_a_chosen_one(
    sized_page: Page, server: LiveServer, layout: Layout
) -> None:
    page = sized_page
    open_app(page, server)
    expect(page.get_by_test_id("protocol-version")).to_have_attribute("data-version", "2")
    if not layout.phone:  # on a phone the agent's name and version sit in the menu
        expect(page.get_by_test_id("protocol-version")).to_have_text("ACP v2")

    welcome = page.get_by_test_id("welcome")
    expect(welcome).to_contain_text("Architect")  # v2 has no modes: its `mode` config option's choices
    shoot(page, "acp-v2/welcome", layout)

    send(page, "help")
    expect(user_messages(page)).to_have_count(1)
    expect(agent_messages(page)).to_have_count(1)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    expect(user_messages(page).first).not_to_have_attribute("data-pending", "true")
    row = page.locator('#suggestions [data-testid="suggestion"]')
    expect(row.first).to_be_visible()
    assert_accessible(page, "a v2 turn with suggestions")
    shoot(page, "acp-v2/turn-with-chips", layout)

    chosen = row.first.get_attribute("data-text") or row.first.inner_text()
    row.first.click()
    expect(user_messages(page)).to_have_count(2)
    expect(agent_messages(page)).to_have_count(2)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    assert chosen.strip().split()[0] in user_messages(page).nth(1).inner_text()


def test_a_v2_permission_shows_the_agents_question_and_the_inspector_labels_v2(
    page: Page, server: LiveServer
) -> None:
    open_app(page, server)
    send(page, "edit README.md")
    permission = page.get_by_test_id("permission")
    expect(permission).to_have_attribute("data-state", "pending")
    expect(page.get_by_test_id("agent-status")).to_contain_text("waiting for you")
    expect(page.get_by_test_id("session-state")).to_have_text("waiting for you")  # the same word
    shoot(page, "acp-v2/permission", Layout("desktop", 1280, 800, phone=False))
    # The proposed change shows once, in its card, from the agent's git patch.
    card_diff = page.locator('[data-testid="tool-call"][data-kind="edit"] [data-testid="diff"]')
    expect(card_diff).to_contain_text("+# reviewed by the demo agent")
    permission.locator("[data-option-id]").first.click()
    expect(permission).to_have_attribute("data-state", "answered")
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")

    page.get_by_test_id("inspector-toggle").click()
    versions = page.get_by_test_id("inspector-version")
    expect(versions.first).to_have_text("v2")
    assert set(versions.all_inner_texts()) == {"v2"}
    assert_accessible(page, "the inspector on a v2 session")
    screenshot(page, "acp-v2/inspector")


def test_a_prompt_sent_while_the_agent_runs_waits_for_it_then_runs(page: Page, server: LiveServer) -> None:
    open_app(page, server)
    send(page, "slow 100")  # about 5 s: long enough to queue a prompt behind it on a busy machine
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "working")
    expect(page.get_by_test_id("send")).to_be_enabled()  # v2: the agent takes it and queues it
    send(page, "help")
    queued = user_messages(page).nth(1)
    expect(queued).to_have_attribute("data-pending", "true")
    expect(queued.get_by_test_id("pending-badge")).to_be_visible()
    screenshot(page, "acp-v2/pending-prompt")
    expect(queued).not_to_have_attribute("data-pending", "true", timeout=30_000)
    expect(agent_messages(page)).to_have_count(2, timeout=30_000)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")


def test_a_closed_v2_session_comes_back_with_a_replay_and_can_be_deleted(
    page: Page, server: LiveServer
) -> None:
    open_app(page, server)
    send(page, "list files")
    expect(agent_messages(page)).to_have_count(1)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    page.get_by_test_id("new-session").click()
    expect(page.get_by_test_id("session-link")).to_have_count(2)
    page.get_by_test_id("session-link").first.get_by_test_id("close-session").click()
    expect(page.get_by_test_id("session-link")).to_have_count(1)

    stored = page.get_by_test_id("stored-session")
    expect(stored).to_have_count(1, timeout=LIST_TIMEOUT_MS)
    stored.get_by_test_id("load-session").click()  # session/resume with a replay from the start
    expect(user_messages(page)).to_have_count(1)
    expect(user_messages(page).first).to_contain_text("list files")
    expect(agent_messages(page).first).to_contain_text("README.md")

    page.get_by_test_id("session-link").filter(has_text="list files").get_by_test_id("close-session").click()
    expect(stored).to_have_count(1, timeout=LIST_TIMEOUT_MS)
    stored.get_by_test_id("delete-session").locator("summary").click()
    assert_accessible(page, "a stored v2 session about to be deleted")
    screenshot(page, "acp-v2/delete-stored", element=page.get_by_test_id("sidebar"))
    stored.get_by_test_id("confirm-delete").click()
    expect(stored).to_have_count(0, timeout=LIST_TIMEOUT_MS)
    expect(page.get_by_test_id("sidebar")).to_contain_text("none yet")


def test_an_open_delete_confirmation_stays_open_while_the_stored_list_refreshes(
    page: Page, server: LiveServer
) -> None:
    open_app(page, server)
    links = page.get_by_test_id("session-link")
    for made, text in enumerate(("list files", "hello there"), start=2):
        send(page, text)
        expect(links.filter(has_text=text)).to_have_count(1)
        expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
        shown = page.url
        page.get_by_test_id("new-session").click()
        # The next prompt goes to the new session's own page, not the one being left.
        expect(page).not_to_have_url(shown)
        expect(links).to_have_count(made)
        expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
        synced(page)
    links.filter(has_text="list files").get_by_test_id("close-session").click()
    stored = page.get_by_test_id("stored-session")
    expect(stored).to_have_count(1, timeout=LIST_TIMEOUT_MS)
    first = stored.filter(has_text="list files")
    first.get_by_test_id("delete-session").locator("summary").click()
    expect(first.get_by_test_id("confirm-delete")).to_be_visible()

    # Another session closes meanwhile: the list is drawn again with it, and the confirmation stays open.
    links.filter(has_text="hello there").get_by_test_id("close-session").click()
    expect(stored).to_have_count(2, timeout=LIST_TIMEOUT_MS)
    expect(first.get_by_test_id("confirm-delete")).to_be_visible()
    first.get_by_test_id("confirm-delete").click()
    expect(stored).to_have_count(1, timeout=LIST_TIMEOUT_MS)
    expect(stored).to_contain_text("hello there")


def test_the_mode_is_a_config_option_the_agent_and_the_user_both_change(
    page: Page, server: LiveServer
) -> None:
    open_app(page, server)
    expect(page.get_by_test_id("mode-select")).to_have_count(0)  # v2 has no modes
    mode = page.locator('[data-testid="config-option"][data-option-id="mode"]')
    send(page, "/mode code")
    expect(mode).to_have_value("code")  # the agent's config_option_update
    mode.select_option("architect")  # session/set_config_option with type "id"
    expect(mode).to_have_value("architect")
    send(page, "help")
    expect(agent_messages(page).last).to_contain_text("demo agent")


def test_auto_with_a_v1_agent_says_v1_and_the_inspector_tells_of_the_fallback(
    browser: Browser, e2e_workspace: Path
) -> None:
    with page_of_its_own(browser, e2e_workspace, "echo_agent", "auto") as page:
        expect(page.get_by_test_id("protocol-version")).to_have_attribute("data-version", "1")
        page.get_by_test_id("inspector-toggle").click()
        note = page.get_by_test_id("inspector-protocol-note")
        expect(note).to_contain_text("answered ACP version 1")
        expect(note).to_contain_text("starts it again with a v1 initialize")
        assert page.get_by_test_id("inspector-version").all_inner_texts()[:2] == ["v2", "v2"]
        assert_accessible(page, "the inspector after a fallback to v1")
        screenshot(page, "acp-v2/fallback-note")


# Counts the tool cards put into the page (a new card element, however it came), from now on.
COUNT_CARDS_PUT_IN = """() => {
  window.cardsPutIn = 0;
  const isCard = (node) => node.nodeType === 1
    && (node.matches('[data-testid="tool-call"]') || node.querySelector('[data-testid="tool-call"]'));
  new MutationObserver((records) => {
    for (const record of records) {
      window.cardsPutIn += [...record.addedNodes].filter(isCard).length;
    }
  }).observe(document.body, { childList: true, subtree: true });
}"""


def test_a_tool_calls_content_added_an_entry_at_a_time_ends_as_a_fresh_page_shows_it(
    browser: Browser, e2e_workspace: Path
) -> None:
    with page_of_its_own(browser, e2e_workspace, "v2_scripted", "2") as page:
        page.evaluate(COUNT_CARDS_PUT_IN)
        send(page, "content 60 40")  # a second and a half of entries, one `tool_call_content_chunk` each
        card = page.get_by_test_id("tool-call")
        expect(card).to_contain_text("line 59", timeout=30_000)
        expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
        expect(card.locator(".tool-part")).to_have_count(60)
        # The entries were appended to the card the page had, not the card sent again for each: it is put
        # in when it starts, and again only when it settles (half a second without an entry, which a busy
        # machine can make happen mid-stream too) and when it completes. Sent whole, it came ~60 times.
        assert page.evaluate("window.cardsPutIn") <= 8
        streamed = str(card.inner_html())
        reload(page)
        expect(page.get_by_test_id("tool-call").locator(".tool-part")).to_have_count(60)
        assert str(page.get_by_test_id("tool-call").inner_html()) == streamed
