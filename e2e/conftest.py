"""Browser tests: a real server with a real agent, driven through a real Chromium by Playwright.

One server and demo agent per test process (starting them is not what these tests measure, and costs
seconds on a loaded machine); every test gets a new, empty session on it (`server`), the shop workspace
as it was, and a fresh browser context signed in with the server's cookie (`page`). Tests that need a
server of their own (another agent, other flags, the token link) start one, e.g. with `fresh_server`.
The servers run on a thread of the test process (`tests.live.serve_in_thread`), each with a real port and
a real agent subprocess, and stop as Ctrl+C stops one when their block ends (the connection tests stop
them under an open page that way); a test that needs a server environment of its own uses `run_server`.

The browser is the system's Chromium (Debian's `chromium-headless-shell` or `chromium`, or
WEBCLIENT_CHROMIUM); Playwright's own browser download is not needed. Screenshots of key states go to
e2e/artifacts/ when a run asks for them (`make screenshots`; e2e/screenshots.py).
"""

from __future__ import annotations

import os

# The suite's agents speak ACP v1 unless a test asks for v2 or auto itself (they are v1 agents, and
# `auto` would start each of them twice). `WEBCLIENT_PROTOCOL=auto make test` runs everything else
# through the negotiation too.
os.environ.setdefault("WEBCLIENT_PROTOCOL", "1")

import dataclasses
import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

from tests.support.chromium import chromium_path
from tests.support.layouts import LAYOUTS, Layout
from tests.support.live import LiveServer, serve_in_thread
from tests.support.sessions import fresh_session, wait_until_agent_ready

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
# For states of the page. Agent start-up has its own, longer deadline: on a machine shared with other
# CPU-heavy jobs it alone can take tens of seconds, and it is not what these tests are about.
UI_TIMEOUT_MS = 15_000
AGENT_STARTUP_TIMEOUT = 60.0
# The demo's pauses, shortened. An answer comes at once: paced, it costs the page a render per chunk, and
# no test here checks the pace. "count to N" still streams line by line, slowly enough to act on.
FAST_DEMO = {"WEBCLIENT_DEMO_CHUNK_DELAY_MS": "0", "WEBCLIENT_DEMO_SLOW_STEP_MS": "50"}


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


def sign_in(context: BrowserContext, server: LiveServer) -> None:
    """Give a browser context the server's session cookie, as its token link would have set it."""
    name, value = server.cookie().split("=", 1)
    context.add_cookies(
        [{"name": name, "value": value, "url": server.base, "httpOnly": True, "sameSite": "Strict"}]
    )


def signed_in_page(browser: Browser, server: LiveServer) -> Page:
    """Another tab in a context of its own, signed in to `server`; close its context when done."""
    context = browser.new_context()
    sign_in(context, server)
    other = context.new_page()
    other.set_default_timeout(UI_TIMEOUT_MS)
    return other


def fill_workspace(root: Path) -> Path:
    """Write the small shop project the demo agent looks at, removing whatever else `root` holds."""
    root.mkdir(parents=True, exist_ok=True)
    for child in root.iterdir():  # not `root` itself: it is the running agent's working directory
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
    (root / "src").mkdir()
    (root / "README.md").write_text("# Shop\n\nA tiny shop service used in the webclient demo.\n")
    (root / "src" / "cart.py").write_text(
        '"""Shopping cart."""\n\n\nclass Cart:\n'
        "    def __init__(self) -> None:\n        self.items: list[str] = []\n\n"
        "    def add(self, item: str) -> None:\n        self.items.append(item)\n"
    )
    (root / "src" / "pricing.py").write_text(
        '"""Prices."""\n\n\ndef total(prices: list[float]) -> float:\n    return sum(prices)\n'
    )
    (root / "pyproject.toml").write_text('[project]\nname = "shop"\nversion = "1.0"\n')
    return root


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


def own_demo_server(name: str, *extra_args: str) -> tuple[Any, Any, Any]:
    """`shop`, `demo_state` and `shared_server` fixtures for a module whose tests need a demo server of
    their own, with `extra_args`; the module binds them under those names:
    `shop, demo_state, shared_server = own_demo_server("v2", "--protocol", "2")`."""

    @pytest.fixture(scope="module", name="shop")
    def own_shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
        return fill_workspace(tmp_path_factory.mktemp(f"e2e-{name}") / "shop")

    @pytest.fixture(scope="module", name="demo_state")
    def own_demo_state(tmp_path_factory: pytest.TempPathFactory) -> Path:
        return tmp_path_factory.mktemp(f"demo-state-{name}")

    @pytest.fixture(scope="module", name="shared_server")
    def own_server(shop: Path, demo_state: Path) -> Iterator[LiveServer]:
        with demo_server(shop, demo_state, *extra_args) as live:
            yield live

    return own_shop, own_demo_state, own_server


@contextmanager
def demo_server(shop: Path, demo_state: Path, *extra_args: str) -> Iterator[LiveServer]:
    """A server with the demo agent in `shop`, its agent ready; stopped when the block ends."""
    env = {"WEBCLIENT_DEMO_STATE_DIR": str(demo_state), **FAST_DEMO}
    serving = serve_in_thread(
        cwd=shop, agent_env=env, extra_args=extra_args, startup_timeout=AGENT_STARTUP_TIMEOUT
    )
    with serving as live:
        wait_until_agent_ready(live, AGENT_STARTUP_TIMEOUT)
        yield live


@pytest.fixture
def server(shared_server: LiveServer, e2e_workspace: Path, demo_state: Path) -> LiveServer:
    """The shared server, its `url` the page of a new, empty, ready session of the demo agent.

    Every other live session is closed and the agent's stored sessions are forgotten first, so nothing
    one test did (its transcript, sessions, suggestions, files) shows in the next.
    """
    return new_test_session(shared_server, demo_state)


def new_test_session(shared_server: LiveServer, demo_state: Path) -> LiveServer:
    """Open a new session alone, with none of the agent's stored sessions; the server with `url` its page.

    In two passes. The first closes what the last test left open: a turn it left running (an edit that
    goes on after its permission) ends as its session closes, and the agent stores that session as it
    ends. Only then are the stored sessions forgotten; the second pass's new session lists none.
    """
    fresh_session(shared_server, AGENT_STARTUP_TIMEOUT, stored_listed=True)
    for stored in demo_state.rglob("sess_*.json"):
        stored.unlink()
    local_id = fresh_session(shared_server, AGENT_STARTUP_TIMEOUT)
    return dataclasses.replace(shared_server, url=f"{shared_server.base}/s/{local_id}")


@pytest.fixture
def fresh_server(e2e_workspace: Path, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of the test's own, just started: its `url` is the token link it printed."""
    env = {"WEBCLIENT_DEMO_STATE_DIR": str(tmp_path / "state"), **FAST_DEMO}
    with serve_in_thread(cwd=e2e_workspace, agent_env=env, startup_timeout=AGENT_STARTUP_TIMEOUT) as live:
        yield live


def open_signed_in(page: Page, server: LiveServer) -> None:
    """Open `server.url` as its user does: the first browser through the printed token link (which
    signs in once per start), every later one with the cookie that link gave."""
    if server.cookies:
        sign_in(page.context, server)
        page.goto(server.url)
        return
    page.goto(server.url)
    page.wait_for_url(re.compile(r"/s/s\d+$"))  # the token left the address bar
    [cookie] = [c for c in page.context.cookies() if c["name"].startswith("webclient_")]
    server.cookies.append(f"{cookie['name']}={cookie['value']}")
