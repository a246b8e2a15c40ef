"""Several sessions in one browser: open a new one, switch with the sidebar, close one, load it back;
and what one test leaves behind on the shared server is gone for the next."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.support.browser import new_test_session
from tests.support.live import LiveServer
from tests.support.pages import chips, open_app, prompt, user_messages
from tests.support.screenshots import screenshot
from tests.support.workspace import fill_workspace


def session_page(page: Page) -> str:
    """The local id in the address of the session the page shows."""
    found = re.search(r"/s/([^/?#]+)$", page.url)
    assert found, page.url
    return found.group(1)


def another_session(first: str) -> re.Pattern[str]:
    return re.compile(rf"/s/(?!{re.escape(first)}$)[^/?#]+$")


def test_a_new_session_opens_beside_the_first_and_the_sidebar_switches_between_them(
    page: Page, server: LiveServer
) -> None:
    open_app(page, server)
    first = session_page(page)
    prompt(page, "list files")
    page.get_by_test_id("new-session").click()
    expect(page).to_have_url(another_session(first))
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    expect(user_messages(page)).to_have_count(0)
    links = page.get_by_test_id("session-link")
    expect(links).to_have_count(2)
    prompt(page, "help")

    links.first.get_by_role("link").click()
    expect(page).to_have_url(re.compile(rf"/s/{first}$"))
    expect(user_messages(page)).to_have_count(1)
    expect(user_messages(page).first).to_contain_text("list files")
    screenshot(page, "sessions")


def test_a_closed_session_loads_back_with_its_transcript_and_no_suggestions(
    page: Page, server: LiveServer
) -> None:
    open_app(page, server)
    first = session_page(page)
    prompt(page, "list files")
    expect(chips(page).first).to_be_visible()  # the first session has suggestions on offer
    page.get_by_test_id("new-session").click()
    expect(page).to_have_url(another_session(first))
    second = session_page(page)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")

    link = page.locator(f'[data-testid="session-link"][data-local-id="{first}"]')
    link.get_by_test_id("close-session").click()
    expect(page.get_by_test_id("session-link")).to_have_count(1)
    load = page.get_by_test_id("load-session")
    expect(load).to_have_count(1)  # the closed session is stored by the agent; the open one is not offered
    load.click()

    expect(page).to_have_url(re.compile(rf"/s/(?!{first}$|{second}$)[^/?#]+$"))
    expect(user_messages(page)).to_have_count(1)
    expect(user_messages(page).first).to_contain_text("list files")
    expect(page.locator('[data-testid="message"][data-role="agent"]').first).to_contain_text("README.md")
    expect(page.get_by_test_id("suggestions")).to_be_hidden()  # a loaded session starts with none
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    prompt(page, "help")  # and it goes on
    expect(chips(page).first).to_be_visible()


def test_the_next_test_gets_an_empty_session_alone_and_the_pristine_workspace(
    page: Page, server: LiveServer, shared_server: LiveServer, e2e_workspace: Path, demo_state: Path
) -> None:
    open_app(page, server)
    prompt(page, "list files")
    expect(chips(page).first).to_be_visible()
    page.get_by_test_id("new-session").click()  # a second live session, stored by the agent too
    expect(page.get_by_test_id("session-link")).to_have_count(2)
    (e2e_workspace / "left-behind.txt").write_text("from an earlier test\n")
    (e2e_workspace / "src" / "cart.py").write_text("# overwritten\n")

    # The next test's page is a new one: this one leaves first, so the server's move of its tab off
    # the session being closed cannot race the navigation below.
    page.goto("about:blank")
    # What the fixtures do before the next test.
    fill_workspace(e2e_workspace)
    following = new_test_session(shared_server, demo_state)

    page.goto(following.url)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    expect(user_messages(page)).to_have_count(0)
    expect(page.get_by_test_id("suggestions")).to_be_hidden()
    expect(page.get_by_test_id("session-link")).to_have_count(1)
    expect(page.get_by_test_id("load-session")).to_have_count(0)
    assert not (e2e_workspace / "left-behind.txt").exists()
    assert "class Cart" in (e2e_workspace / "src" / "cart.py").read_text()
