"""Browser tests: a real server with a real agent, driven through a real Chromium by Playwright.

One server and demo agent per test process (starting them is not what these tests measure, and costs
seconds on a loaded machine); every test gets a new, empty session on it (`server`), the shop workspace
as it was, and a fresh browser context signed in with the server's cookie (`page`). Tests that need a
server of their own (another agent, other flags, the token link) start one, e.g. with `fresh_server`.
The servers run on a thread of the test process (`tests.support.live.serve_in_thread`), each with a real
port and a real agent subprocess, and stop as Ctrl+C stops one when their block ends (the connection tests
stop them under an open page that way); a test that needs a server environment of its own uses
`run_server`.

The browser is the system's Chromium (Debian's `chromium-headless-shell` or `chromium`, or
WEBCLIENT_CHROMIUM); Playwright's own browser download is not needed. Screenshots of key states go to
e2e/artifacts/ when a run asks for them (`make screenshots`; tests/support/screenshots.py). Helpers
that are not fixtures (signing in, opening the page, prompting) are in tests/support/ (browser.py,
pages.py).
"""

from __future__ import annotations

import os

# The suite's agents speak ACP v1 unless a test asks for v2 or auto itself (they are v1 agents, and
# `auto` would start each of them twice). `WEBCLIENT_PROTOCOL=auto make test` runs everything else
# through the negotiation too.
os.environ.setdefault("WEBCLIENT_PROTOCOL", "1")

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Playwright, expect, sync_playwright

from tests.support.browser import (
    AGENT_STARTUP_TIMEOUT,
    FAST_DEMO,
    UI_TIMEOUT_MS,
    demo_server,
    new_test_session,
    sign_in,
)
from tests.support.chromium import chromium_path
from tests.support.layouts import LAYOUTS, Layout
from tests.support.live import LiveServer, serve_in_thread
from tests.support.workspace import fill_workspace

# Assertions wait as long as page actions do: Playwright's own 5 s is short for a loaded 2-core machine.
expect.set_options(timeout=UI_TIMEOUT_MS)

# Flags a headless Chromium needs on a locked-down machine with no network beyond loopback.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


# One browser for the whole run: each test still gets a context of its own (cookies, storage, cache).
@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    # With no system Chromium, Playwright uses a browser it installed itself, if any.
    browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
    yield browser
    browser.close()


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A tab in a fresh browser context (its own cookies and localStorage), signed in to `server` when the
    test uses it; a test with a server of its own signs in through that server's token link."""
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    if "server" in request.fixturenames:
        sign_in(context, request.getfixturevalue("server"))
    page = context.new_page()
    page.set_default_timeout(UI_TIMEOUT_MS)
    yield page
    context.close()


@pytest.fixture(params=LAYOUTS, ids=[layout.name for layout in LAYOUTS])
def layout(request: pytest.FixtureRequest) -> Layout:
    """A desktop and a phone: tests that take it run at both sizes."""
    value: Layout = request.param
    return value


@pytest.fixture
def sized_page(browser: Browser, layout: Layout, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A page in a fresh browser context at the layout's size (touch on a phone), signed in to `server`
    when the test uses it."""
    context = browser.new_context(**layout.context_options())
    if "server" in request.fixturenames:
        sign_in(context, request.getfixturevalue("server"))
    page = context.new_page()
    page.set_default_timeout(20_000)
    yield page
    context.close()


@pytest.fixture(scope="session")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shared server's workspace directory; `e2e_workspace` restores its content before every test."""
    return fill_workspace(tmp_path_factory.mktemp("e2e") / "shop")


@pytest.fixture
def e2e_workspace(shop: Path) -> Path:
    """The shop project as it was before any test: files an earlier test had the agent write are gone."""
    return fill_workspace(shop)


@pytest.fixture(scope="session")
def demo_state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the shared server's demo agent stores its sessions."""
    return tmp_path_factory.mktemp("demo-state")


@pytest.fixture(scope="session")
def shared_server(shop: Path, demo_state: Path) -> Iterator[LiveServer]:
    """One server with the demo agent in the shop workspace for every test of this process, its agent
    ready. A module that needs a server of its own overrides it (and `shop` and `demo_state`) with
    `own_demo_server`."""
    with demo_server(shop, demo_state) as live:
        yield live


@pytest.fixture
def server(shared_server: LiveServer, e2e_workspace: Path, demo_state: Path) -> LiveServer:
    """The shared server, its `url` the page of a new, empty, ready session of the demo agent.

    Every other live session is closed and the agent's stored sessions are forgotten first, so nothing
    one test did (its transcript, sessions, suggestions, files) shows in the next.
    """
    return new_test_session(shared_server, demo_state)


@pytest.fixture
def fresh_server(e2e_workspace: Path, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of the test's own, just started: its `url` is the token link it printed."""
    env = {"WEBCLIENT_DEMO_STATE_DIR": str(tmp_path / "state"), **FAST_DEMO}
    with serve_in_thread(cwd=e2e_workspace, agent_env=env, startup_timeout=AGENT_STARTUP_TIMEOUT) as live:
        yield live
