"""A browser's way in: signing a context in to a test server, and the demo servers the browser tests share.

`sign_in` gives a browser context a server's cookie as its token link would; `open_signed_in` opens a
page the way a user does. `demo_server` runs the demo agent in a workspace until its agent is ready
(`remote_demo_server`: the same agent served over WebSocket by `acpremote`, as on another machine);
`own_demo_server` makes the fixtures for a module that needs a demo server of its own.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from tests.support.live import LiveServer, serve_in_thread
from tests.support.remote_agents import acpremote_demo, running
from tests.support.sessions import fresh_session, wait_until_agent_ready
from tests.support.workspace import fill_workspace

# For states of the page. Agent start-up has its own, longer deadline: on a machine shared with other
# CPU-heavy jobs it alone can take tens of seconds, and it is not what these tests are about.
UI_TIMEOUT_MS = 15_000
AGENT_STARTUP_TIMEOUT = 60.0
# The demo's pauses, shortened. An answer comes at once: paced, it costs the page a render per chunk, and
# no test here checks the pace. "count to N" still streams line by line, slowly enough to act on.
FAST_DEMO = {"WEBCLIENT_DEMO_CHUNK_DELAY_MS": "0", "WEBCLIENT_DEMO_SLOW_STEP_MS": "50"}


KEY_STORE = "webclient-sign-in-key"  # where static/sign_in_key.js keeps the page's key


def sign_in(context: BrowserContext, server: LiveServer) -> None:
    """Give a browser context the server's session cookie and the page's key in the origin's storage, as
    its token link would have set them."""
    name, value = server.cookie().split("=", 1)
    context.add_cookies(
        [{"name": name, "value": value, "url": server.base, "httpOnly": True, "sameSite": "Strict"}]
    )
    origin, key = json.dumps(server.base), json.dumps(server.key())
    context.add_init_script(
        f"if (location.origin === {origin} && !localStorage.getItem({json.dumps(KEY_STORE)}))"
        f" localStorage.setItem({json.dumps(KEY_STORE)}, {key});"
    )


def signed_in_page(browser: Browser, server: LiveServer) -> Page:
    """Another tab in a context of its own, signed in to `server`; close its context when done."""
    context = browser.new_context()
    sign_in(context, server)
    other = context.new_page()
    other.set_default_timeout(UI_TIMEOUT_MS)
    return other


def open_signed_in(page: Page, server: LiveServer) -> None:
    """Open `server.url` as its user does: the first browser through the printed token link (which
    signs in once per start), every later one with the cookie that link gave."""
    if server.cookies:
        sign_in(page.context, server)
        page.goto(server.url)
        return
    page.goto(server.url)
    page.wait_for_url(re.compile(r"/s/s\d+$"))  # the token (and the key) left the address bar
    [cookie] = [c for c in page.context.cookies() if c["name"].startswith("webclient_")]
    server.cookies.append(f"{cookie['name']}={cookie['value']}")
    server.keys.append(page.evaluate(f"localStorage.getItem({json.dumps(KEY_STORE)})"))


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
    forget_stored_sessions(demo_state)  # an earlier server of the module stored its sessions as it stopped
    env = {"WEBCLIENT_DEMO_STATE_DIR": str(demo_state), **FAST_DEMO}
    serving = serve_in_thread(
        cwd=shop, agent_env=env, extra_args=extra_args, startup_timeout=AGENT_STARTUP_TIMEOUT
    )
    with serving as live:
        wait_until_agent_ready(live, AGENT_STARTUP_TIMEOUT)
        yield live


@contextmanager
def remote_demo_server(shop: Path, demo_state: Path, *extra_args: str) -> Iterator[LiveServer]:
    """A server whose agent is the demo agent on "another machine": `acpremote` serves it over WebSocket
    on loopback, in `shop`, keeping its sessions in `demo_state`; stopped when the block ends."""
    forget_stored_sessions(demo_state)  # as for demo_server: the stdio run before it stored its sessions
    with running(acpremote_demo(demo_state, shop, env=FAST_DEMO)) as remote:
        serving = serve_in_thread(
            agent=remote.url(), cwd=shop, extra_args=extra_args, startup_timeout=AGENT_STARTUP_TIMEOUT
        )
        with serving as live:
            wait_until_agent_ready(live, AGENT_STARTUP_TIMEOUT)
            yield live


def forget_stored_sessions(demo_state: Path) -> None:
    """Remove every session the demo agent stored in `demo_state`, so that the next start lists none."""
    for stored in demo_state.rglob("sess_*.json"):
        stored.unlink()


def new_test_session(shared_server: LiveServer, demo_state: Path) -> LiveServer:
    """Open a new session alone, with none of the agent's stored sessions; the server with `url` its page.

    In two passes. The first closes what the last test left open: a turn it left running (an edit that
    goes on after its permission) ends as its session closes, and the agent stores that session as it
    ends. Only then are the stored sessions forgotten; the second pass's new session lists none.
    """
    fresh_session(shared_server, AGENT_STARTUP_TIMEOUT, stored_listed=True)
    forget_stored_sessions(demo_state)
    try:
        local_id = fresh_session(shared_server, AGENT_STARTUP_TIMEOUT)
    except AssertionError:
        # A turn of the last test that ended only after the first pass (its session closed, the agent
        # busy) was stored after the forgetting, and the new session lists it: forget it, open another.
        forget_stored_sessions(demo_state)
        local_id = fresh_session(shared_server, AGENT_STARTUP_TIMEOUT)
    return dataclasses.replace(shared_server, url=f"{shared_server.base}/s/{local_id}")
