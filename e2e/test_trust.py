"""What the user sees when an agent misbehaves or a sign-in link is reused, in a real browser.

Each state is screenshotted at desktop and phone size, light and dark, when a run takes screenshots.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.support.accessibility import describe, violations
from tests.support.browser import open_signed_in
from tests.support.live import LiveServer, http_get, scripted_agent, serve_in_thread
from tests.support.pages import reload, sockets_through
from tests.support.screenshots import screenshot

VARIANTS = [
    ("desktop", {"width": 1280, "height": 800}, "light"),
    ("desktop", {"width": 1280, "height": 800}, "dark"),
    ("phone", {"width": 390, "height": 844}, "light"),
    ("phone", {"width": 390, "height": 844}, "dark"),
]


def shoot_all(page: Page, name: str) -> None:
    """The page as it is now, in every size and colour scheme, each size scanned with axe-core whether or
    not the run takes screenshots; the page is left at the size it had."""
    was = page.viewport_size
    for size, viewport, scheme in VARIANTS:
        # Reduced motion: the phone's sessions drawer slides away without a transition to catch midway.
        page.emulate_media(color_scheme=scheme, reduced_motion="reduce")  # type: ignore[arg-type]
        page.set_viewport_size(viewport)  # type: ignore[arg-type]
        screenshot(page, f"trust-{name}-{size}-{scheme}")
    if was is not None:
        page.set_viewport_size(was)
    page.emulate_media(color_scheme="light", reduced_motion="no-preference")


Start = Callable[..., LiveServer]


@pytest.fixture
def scripted(tmp_path: Path) -> Iterator[Start]:
    """Start servers with scripted agents from tests/agents/; all are stopped after the test."""
    with ExitStack() as stack:

        def start(name: str, *args: str, **settings: Any) -> LiveServer:
            return stack.enter_context(serve_in_thread(scripted_agent(name, *args), cwd=tmp_path, **settings))

        yield start


def violations_in(page: Page, *parts: str) -> list[dict[str, Any]]:
    """axe's violations with a node whose selector names one of ``parts`` (the regions a test is about)."""
    return [v for v in violations(page) if any(p in str(n["target"]) for n in v["nodes"] for p in parts)]


def send(page: Page, text: str) -> None:
    composer = page.get_by_test_id("composer")
    composer.fill(text)
    composer.press("Enter")


def test_an_agent_logging_to_stdout_shows_one_notice_with_a_count(page: Page, scripted: Start) -> None:
    server = scripted("stdout_logger")
    open_signed_in(page, server)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    send(page, "go")
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready", timeout=60_000)

    notice = page.get_by_test_id("notice").filter(has_text="not JSON-RPC")
    expect(notice).to_have_count(1)
    expect(notice.get_by_test_id("notice-count")).to_have_text("\u00d7200")
    expect(notice).to_contain_text("log: step 199")
    notice.scroll_into_view_if_needed()
    shoot_all(page, "notice-count")
    found = [v for v in violations(page) if any("notice" in str(n["target"]) for n in v["nodes"])]
    assert not found, describe(found)  # (the rest of the page is checked by the other browser tests)


def test_an_endless_line_stops_the_agent_and_says_why(page: Page, scripted: Start) -> None:
    server = scripted("endless_line")
    open_signed_in(page, server)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    send(page, "go")
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "exited", timeout=60_000)
    expect(page.get_by_test_id("notice").filter(has_text="without a newline")).to_have_count(1)
    expect(page.get_by_test_id("restart")).to_be_visible()
    shoot_all(page, "endless-line")


def test_a_stderr_flood_gives_a_short_exit_notice(page: Page, scripted: Start) -> None:
    server = scripted("stderr_bomb")
    open_signed_in(page, server)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "exited", timeout=60_000)
    notice = page.get_by_test_id("notice").filter(has_text="code 3")
    expect(notice).to_contain_text("more bytes cut]")
    expect(notice).to_contain_text("the real error: config file missing")
    shoot_all(page, "stderr-tail")


def test_the_inspector_says_how_many_entries_it_dropped(page: Page, scripted: Start) -> None:
    server = scripted("huge_tool_updates", "24", "1")  # 24 MiB: more than the 16 MiB the inspector keeps
    open_signed_in(page, server)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    send(page, "go")
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready", timeout=60_000)
    expect(page.locator('[data-testid="message"][data-role="agent"]')).to_contain_text("done")
    page.get_by_test_id("inspector-toggle").click()
    note = page.get_by_test_id("inspector-note")
    expect(note).to_be_visible()
    expect(note).to_have_text(re.compile(r"\d+ older entries were dropped to keep memory bounded\."))
    shoot_all(page, "inspector-dropped")


def test_a_reused_sign_in_link_gets_a_page_that_says_what_to_do(
    browser: Browser, page: Page, scripted: Start
) -> None:
    server = scripted("echo_agent")
    open_signed_in(page, server)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")

    stranger = browser.new_context().new_page()
    response = stranger.goto(server.url)
    assert response is not None and response.status == 401
    refused = stranger.get_by_test_id("error-page")
    expect(refused).to_contain_text("This link was already used")
    expect(refused).to_contain_text("restart webclient")
    found = violations(stranger)
    assert not found, describe(found)
    shoot_all(stranger, "token-spent")
    stranger.context.close()

    page.goto(server.url)  # the browser that signed in may use the printed link again
    expect(page).to_have_url(re.compile(r"/s/s\d+$"))
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    assert http_get(server.url, follow_redirects=False).status_code == 401


def test_a_fifo_the_agent_asks_to_read_is_refused_and_the_page_says_so(
    page: Page, scripted: Start, tmp_path: Path
) -> None:
    fifo = tmp_path / "build.pipe"
    os.mkfifo(fifo)
    server = scripted("asks_client")
    open_signed_in(page, server)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    send(page, f"read {fifo}")
    notice = page.get_by_test_id("notice").filter(has_text="refused the agent's request to read")
    expect(notice).to_contain_text("is a FIFO, not a regular file")
    # The agent got a JSON-RPC error (it reports every answer as a message), and the page stays usable.
    answer = page.locator('[data-testid="message"][data-role="agent"]').last
    expect(answer).to_contain_text('"error"')
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    shoot_all(page, "fifo-refused")


def test_a_write_to_git_config_asks_first_with_the_path_and_the_diff_and_reject_writes_nothing(
    page: Page, scripted: Start, tmp_path: Path
) -> None:
    config = tmp_path / ".git" / "config"
    config.parent.mkdir()
    config.write_text("[core]\n\tbare = false\n")
    server = scripted("writes_protected")
    open_signed_in(page, server)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    send(page, f"write {config} [core] fsmonitor = <script>touch owned</script>")

    card = page.get_by_test_id("permission")
    expect(card).to_be_visible()
    expect(card).to_contain_text("The agent wants to change a protected file")
    location = card.get_by_test_id("permission-location")
    expect(location).to_have_text(".git/config")  # by its path in the workspace, the whole path on hover
    expect(location.get_by_title(str(config))).to_be_visible()
    diff = card.get_by_test_id("permission-diff")
    expect(diff.locator(".diff-del").last).to_contain_text("bare = false")
    expect(diff.locator(".diff-add")).to_contain_text("fsmonitor = <script>touch owned</script>")  # as text
    expect(card.locator("[data-option-id]")).to_have_text(["Allow once", "Reject"])
    assert config.read_text() == "[core]\n\tbare = false\n"  # nothing written while it asks
    found = violations_in(page, "perm-", ".diff", "notice")
    assert not found, describe(found)
    shoot_all(page, "protected-write-asks")

    card.locator('[data-option-id="reject-protected-write"]').click()
    expect(card.get_by_test_id("permission-outcome")).to_contain_text("Reject")
    notice = page.get_by_test_id("notice").filter(has_text="refused the agent's request to write")
    expect(notice).to_contain_text("did not allow the write; nothing was written")
    answer = page.locator('[data-testid="message"][data-role="agent"]').last
    expect(answer).to_contain_text('"error"')  # what the agent received
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    assert config.read_text() == "[core]\n\tbare = false\n"
    shoot_all(page, "protected-write-rejected")


def test_an_agent_that_ignores_cancel_can_be_stopped_and_the_conversation_stays(
    page: Page, scripted: Start
) -> None:
    server = scripted("ignores_cancel", cancel_grace=1.0)
    open_signed_in(page, server)
    status = page.get_by_test_id("agent-status")
    expect(status).to_have_attribute("data-state", "ready")
    send(page, "refactor everything")
    expect(page.locator('[data-testid="message"][data-role="agent"]')).to_contain_text("working on it")
    page.get_by_test_id("cancel").click()

    expect(status).to_have_attribute("data-state", "unresponsive", timeout=30_000)
    expect(status).to_have_text("the agent did not stop")
    expect(page.get_by_test_id("notice").filter(has_text="did not stop within 1 s")).to_have_count(1)
    restart = page.get_by_test_id("restart")
    expect(restart).to_have_text("Stop and restart agent")
    expect(page.get_by_test_id("cancel")).to_have_count(0)
    found = violations_in(page, "agent-status", "composer-actions", "restart", "auth", "notice")
    assert not found, describe(found)
    shoot_all(page, "cancel-ignored")

    restart.click()
    expect(page.get_by_test_id("notice").filter(has_text="restarting the agent")).to_have_count(1)
    expect(status).to_have_attribute("data-state", "ready", timeout=60_000)
    expect(page.get_by_test_id("restart")).to_have_count(0)
    user = page.locator('[data-testid="message"][data-role="user"]')
    expect(user).to_have_count(1)
    expect(user).to_contain_text("refactor everything")  # the transcript stays
    expect(page.get_by_test_id("send")).to_be_enabled()


def test_a_sign_in_that_never_finishes_offers_a_restart(page: Page, scripted: Start) -> None:
    server = scripted("auth_never_answers")
    open_signed_in(page, server)
    status = page.get_by_test_id("agent-status")
    expect(status).to_have_attribute("data-state", "auth-required", timeout=30_000)
    expect(page.get_by_test_id("restart")).to_be_visible()
    page.get_by_test_id("auth-method").first.click()
    expect(page.get_by_test_id("auth-pending")).to_be_visible()  # chosen: the agent never answers
    expect(status).to_have_attribute("data-state", "auth-required")
    expect(status).to_have_text("signing in…")
    restart = page.get_by_test_id("restart")
    expect(restart).to_be_visible()
    found = violations_in(page, "agent-status", "composer-actions", "restart", "auth", "notice")
    assert not found, describe(found)
    shoot_all(page, "sign-in-stuck")

    restart.click()
    expect(page.get_by_test_id("notice").filter(has_text="restarting the agent")).to_have_count(1)
    expect(page.get_by_test_id("auth-method")).to_have_count(2, timeout=30_000)  # a fresh agent asks again


@contextmanager
def another_server(cookies: list[str], text: str) -> Iterator[tuple[str, list[str]]]:
    """Another server on this machine (127.0.0.1, another port) whose every page says `text` and sets
    `cookies` (Set-Cookie values), as any local program can: cookies are not kept apart by port. Yields
    its address and the Cookie headers the browser sent it."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.headers.get("cookie") or "")
            body = f"<!doctype html><title>another server</title><p>{text}</p>".encode()
            self.send_response(200)
            for cookie in cookies:
                self.send_header("set-cookie", cookie)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    other = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=other.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{other.server_address[1]}/", seen
    finally:
        other.shutdown()
        other.server_close()
        thread.join(timeout=10)


def cookie_setter(name: str) -> AbstractContextManager[tuple[str, list[str]]]:
    """Another server whose every page overwrites the cookie called `name`."""
    return another_server([f"{name}=overwritten; Path=/; HttpOnly; SameSite=Strict"], "another server")


def test_another_server_on_this_machine_that_overwrites_the_cookie_does_not_sign_the_page_out(
    page: Page, scripted: Start
) -> None:
    server = scripted("echo_agent")
    sockets = sockets_through(page)
    open_signed_in(page, server)
    status = page.get_by_test_id("agent-status")
    expect(status).to_have_attribute("data-state", "ready")
    name, value = server.cookies[0].split("=", 1)
    # The page keeps its key in its origin's storage once it has loaded.
    page.wait_for_function("() => !!window.localStorage.getItem('webclient-sign-in-key')")

    def held() -> str:
        return {c["name"]: c["value"] for c in page.context.cookies(server.base)}[name]

    with cookie_setter(name) as (other, seen):
        # Another tab of this browser visits the other server: it is sent our cookie, and its own
        # replaces it (cookies are not kept apart by port).
        elsewhere = page.context.new_page()
        elsewhere.goto(other)
        expect(elsewhere.locator("p")).to_have_text("another server")
        assert any(f"{name}={value}" in header for header in seen), seen
        assert held() == "overwritten"

        # The open page's connection drops: its reconnect is refused for want of the cookie, it gets the
        # cookie back with its key, and goes on.
        sockets[-1].close(code=1012)
        banner = page.get_by_test_id("connection")
        expect(banner).to_have_attribute("data-state", "open", timeout=30_000)
        assert held() == value
        send(page, "still connected")
        expect(page.locator('[data-testid="message"][data-role="agent"]').last).to_contain_text(
            "still connected"
        )

        elsewhere.reload()  # overwritten again
        assert held() == "overwritten"
        page.goto(server.base + "/")  # refused for want of the cookie, the page gets it back and loads
        expect(status).to_have_attribute("data-state", "ready")
        expect(page).to_have_url(re.compile(r"/s/s\d+$"))
        assert held() == value
        send(page, "still here")
        expect(page.locator('[data-testid="message"][data-role="agent"]').last).to_contain_text("still here")

    # A browser that never signed in has no key: it stays refused, with the page that says what to do.
    stranger = page.context.browser
    assert stranger is not None
    other_page = stranger.new_context().new_page()
    other_page.goto(server.base + "/")
    expect(other_page.get_by_test_id("error-page")).to_have_attribute("data-status", "401")
    other_page.context.close()


def test_a_user_message_of_5_mb_from_the_agent_shows_its_start_and_offers_the_whole_as_a_download(
    page: Page, scripted: Start
) -> None:
    server = scripted("big_items")
    open_signed_in(page, server)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    send(page, "user-chunk")
    expect(page.locator('[data-testid="message"][data-role="agent"]').last).to_contain_text("done user-chunk")
    cut = page.get_by_test_id("user-text-cut")
    expect(cut).to_contain_text("4,900,000 more characters are not shown")
    with page.expect_download() as download:
        cut.get_by_test_id("user-text-download").click()
    assert Path(download.value.path()).stat().st_size == 5_000_000
    reload(page)  # a later load shows it the same way, bounded
    expect(page.get_by_test_id("user-text-cut")).to_be_visible()
    for size, viewport, scheme in VARIANTS:  # the cut's note in view at every size
        page.emulate_media(color_scheme=scheme, reduced_motion="reduce")  # type: ignore[arg-type]
        page.set_viewport_size(viewport)  # type: ignore[arg-type]
        cut.scroll_into_view_if_needed()
        screenshot(page, f"trust-user-message-cut-{size}-{scheme}")


def test_the_token_link_gives_the_page_its_key_and_the_cookie_alone_is_told_what_to_do(
    page: Page, browser: Browser, scripted: Start
) -> None:
    server = scripted("echo_agent")
    open_signed_in(page, server)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    assert "webclient-key" not in page.url  # taken out of the address bar
    key = page.evaluate("() => window.localStorage.getItem('webclient-sign-in-key')")
    assert key and key not in server.cookies[0]
    send(page, "with the key")
    expect(page.locator('[data-testid="message"][data-role="agent"]').last).to_contain_text("with the key")

    # Another browser profile that got the cookie alone (as any server on 127.0.0.1 it visits is sent):
    # the page loads, but its socket is refused for want of the key, and it says what to do.
    name, value = server.cookies[0].split("=", 1)
    context = browser.new_context()
    try:
        context.add_cookies([{"name": name, "value": value, "url": server.base}])
        other = context.new_page()
        other.goto(server.base + "/s/s1")
        refusal = other.get_by_test_id("error-page")
        expect(refusal).to_contain_text("This page has no sign-in key", timeout=30_000)
        expect(refusal).to_contain_text("Open the link webclient printed")
        assert not violations(other), describe(violations(other))
    finally:
        context.close()


@contextmanager
def cookie_flooder(count: int) -> Iterator[str]:
    """Another server on 127.0.0.1 whose page sets `count` cookies of 1 KB each: the browser then sends
    them all to every server of 127.0.0.1, webclient too."""
    flood = [f"flood{n}={'x' * 1000}; Path=/" for n in range(count)]
    with another_server(flood, "cookies set") as (address, _):
        yield address


def test_a_flood_of_cookies_from_another_local_server_is_explained_and_the_page_recovers(
    page: Page, scripted: Start
) -> None:
    server = scripted("echo_agent")
    open_signed_in(page, server)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    with cookie_flooder(150) as other:  # 150 KB of cookies for 127.0.0.1
        elsewhere = page.context.new_page()
        elsewhere.goto(other)
        expect(elsewhere.locator("p")).to_have_text("cookies set")
        elsewhere.close()
    # The next load is answered with a page that says why and clears them; it gets our cookie back
    # with its key and loads the session again, by itself.
    response = page.goto(server.base + "/s/s1")
    assert response is not None and response.status == 431
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready", timeout=30_000)
    assert not [c for c in page.context.cookies(server.base) if c["name"].startswith("flood")]
    send(page, "after the flood")
    expect(page.locator('[data-testid="message"][data-role="agent"]').last).to_contain_text("after the flood")
