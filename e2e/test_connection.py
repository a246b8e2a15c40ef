"""Losing the server: a banner in view, nothing that acts on the server enabled, and after a restart a
page that says what happened and what to do; the draft is still there once the new link is opened."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from tests.support.console import watch_problems
from tests.support.layouts import Layout, assert_accessible, shoot
from tests.support.live import LiveServer, serve_in_thread
from tests.support.pages import in_view, open_app, prompt, reload, sockets_through


def test_the_banner_shows_in_view_when_the_server_goes_away_and_a_restart_is_explained(
    sized_page: Page, e2e_workspace: Path, tmp_path: Path, layout: Layout
) -> None:
    page = sized_page
    state = {"WEBCLIENT_DEMO_STATE_DIR": str(tmp_path / "state")}
    banner = page.get_by_test_id("connection")
    composer = page.get_by_test_id("composer")
    # Each server stops as Ctrl+C stops it (its agent with it) when its block ends.
    with serve_in_thread(cwd=e2e_workspace, agent_env=state) as first:
        open_app(page, first)
        expect(banner).to_be_hidden()
        expect(banner).to_have_attribute("data-state", "open")
        prompt(page, "list files")
        chip = page.get_by_test_id("suggestion").first
        expect(chip).to_be_enabled()
        composer.fill("half a thought")

    expect(banner).to_have_attribute("data-state", "down")
    expect(banner).to_be_visible()
    assert in_view(page, banner), "the banner is fixed in the viewport"
    expect(page.get_by_test_id("send")).to_be_disabled()
    expect(page.get_by_test_id("new-session")).to_be_disabled()
    expect(chip).to_be_disabled()
    expect(composer).to_have_value("half a thought")  # typing goes on; sending waits
    expect(page.get_by_test_id("agent-status")).to_have_text("offline")  # not "ready": it cannot know
    expect(page.get_by_test_id("session-state").first).to_have_text("offline")  # nor does the sidebar
    composer.press("Enter")
    expect(page.locator('[data-testid="message"][data-role="user"]')).to_have_count(1)
    assert_accessible(page, "connection lost")
    shoot(page, "connection-lost", layout)
    page.get_by_test_id("reconnect").click()  # nobody answers yet: it stays down
    expect(banner).to_have_attribute("data-state", "down")

    same_port = ["--port", str(first.port)]
    with serve_in_thread(cwd=e2e_workspace, agent_env=state, extra_args=same_port) as second:
        # A restarted server has a new token: this page is out of date, and the banner says what to do.
        # The page's own retry may reach the new server before this click does (on a busy machine the
        # server takes seconds to start), hiding the button: dispatch the click whatever its state.
        page.get_by_test_id("reconnect").dispatch_event("click")
        expect(banner).to_have_attribute("data-state", "expired")
        expect(banner).to_contain_text("restarted")
        expect(banner).to_contain_text("?token=")
        shoot(page, "connection-restarted", layout)

        page.get_by_test_id("reload").click()
        error = page.get_by_test_id("error-page")
        expect(error).to_be_visible()
        expect(error).to_have_attribute("data-status", "401")
        expect(error).to_contain_text("What to do")
        # Styled like the app: its stylesheet applies under the strict CSP (once it has loaded).
        expect(error).to_have_css("border-top-left-radius", "10px")
        assert_accessible(page, "the signed-out page")
        shoot(page, "signed-out", layout)

        # The old link says it is out of date; an unknown session says so too, both as pages.
        page.goto(first.url)
        expect(error).to_have_attribute("data-status", "401")
        expect(error).to_contain_text("out of date")
        open_app(page, second)
        page.goto(second.base + "/s/s99")
        expect(error).to_have_attribute("data-status", "404")
        expect(error).to_contain_text("not open")

        # The new link works, and the draft from before the restart is still in the composer.
        open_app(page, second)
        expect(banner).to_be_hidden()
        expect(composer).to_have_value("half a thought")
        expect(page.get_by_test_id("send")).to_be_enabled()

        # A permission request on screen when the server goes away cannot be answered either.
        composer.fill("edit src/cart.py")
        composer.press("Enter")
        option = page.get_by_test_id("permission").locator("button").first
        expect(option).to_be_enabled()

    expect(banner).to_have_attribute("data-state", "down")
    expect(option).to_be_disabled()


def test_a_dropped_connection_comes_back_by_itself_and_with_reconnect_now(
    page: Page, server: LiveServer
) -> None:
    # The browser's WebSocket to the real server runs through Playwright, so the test can cut it the way
    # a network does; everything else is the real server and agent.
    problems = watch_problems(page)  # the probe of each loss among them, once answered 405
    sockets = sockets_through(page)
    open_app(page, server)
    banner = page.get_by_test_id("connection")
    send = page.get_by_test_id("send")
    for cut in range(2):
        sockets[-1].close(code=1012)  # "service restart": the client should retry
        expect(banner).to_have_attribute("data-state", "down")
        expect(banner).to_be_visible()
        expect(send).to_be_disabled()
        expect(page.get_by_test_id("session-state").first).to_have_text("offline")
        if cut == 1:
            page.get_by_test_id("reconnect").click()
        expect(banner).to_have_attribute("data-state", "open", timeout=30_000)
        expect(banner).to_be_hidden()
        expect(send).to_be_enabled()
        expect(page.get_by_test_id("session-state").first).to_have_text("ready")
    assert len(sockets) == 3
    prompt(page, "list files")  # and the session goes on over the new connection
    assert problems == []


# Marks the messages the server rendered into the page, before any script of the page runs: a snapshot
# swapped in over them replaces them with unmarked ones.
_MARK_RENDERED = """document.addEventListener("readystatechange", () => {
  if (document.readyState !== "interactive") { return; }
  for (const entry of document.querySelectorAll("#transcript > *")) {
    entry.setAttribute("data-rendered", "1");
  }
});"""


def test_a_page_that_shows_the_session_as_it_is_keeps_its_markup_when_its_socket_opens(
    page: Page, server: LiveServer
) -> None:
    open_app(page, server)
    prompt(page, "list files")
    page.add_init_script(_MARK_RENDERED)
    answer = page.locator('[data-testid="message"][data-role="agent"]').last
    # A change between the page's render and its socket (suggestions and the stored sessions' list follow
    # a turn) rightly brings a full snapshot: once the session is quiet, a reload keeps what was rendered.
    kept = False
    for _ in range(5):
        reload(page)
        expect(answer).to_contain_text("README.md")
        if answer.get_attribute("data-rendered") == "1":
            kept = True
            break
    assert kept, "every reload's socket swapped the same transcript in again"
