"""The web app in the test's own process, through Starlette's TestClient, with a real agent subprocess.

Starting a server subprocess costs a Python start and every import of the web stack; the app itself starts
in milliseconds. So the web layer's behaviour (routes, the security middleware, WebSocket actions) is
tested here in-process: the app runs with its lifespan (so the agent is a real subprocess speaking ACP
over stdio), requests carry our own Host (the base URL) and, where needed, our Origin. What only a real
server can show (the command line, start-up, uvicorn's answer to a refused upgrade) stays in
`tests/support/live.py`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from starlette.testclient import TestClient, WebSocketTestSession

from tests.support.html import status_is
from tests.support.polling import Deadline
from webclient.settings import Settings
from webclient.web.app import create_app
from webclient.web.security import key_in, key_message

# Nothing listens here: the port only names the Host and Origin the app accepts and its cookie.
PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"
TOKEN = "in-process-test-token-0123456789"
# Agent start-up is not what these tests measure, and a loaded machine can take seconds for it.
STARTUP_TIMEOUT = 60.0
WAIT_TIMEOUT = 20.0


@dataclass
class InProcessApp:
    """The app, its TestClient, and the session cookie its token was exchanged for (once)."""

    client: TestClient
    settings: Settings
    exchange: httpx.Response  # the answer to the token link, the one time it was opened
    tabs: list[Tab] = field(default_factory=list)

    @property
    def cookie(self) -> str:
        """`name=value` of the session cookie the token was exchanged for."""
        return str(self.exchange.headers["set-cookie"]).split(";", 1)[0]

    @property
    def key(self) -> str:
        """The page's key the token link gave (in the fragment of where it redirected)."""
        key = key_in(self.exchange.headers["location"])
        assert key is not None, self.exchange.headers["location"]
        return key

    @property
    def base(self) -> str:
        return BASE

    @property
    def port(self) -> int:
        return PORT

    @property
    def origin(self) -> str:
        return BASE

    def get(self, path: str, **kwargs: Any) -> Any:
        """A GET with the session cookie (and anything else given), redirects not followed."""
        headers = {"cookie": self.cookie, **kwargs.pop("headers", {})}
        return self.client.get(path, headers=headers, follow_redirects=False, **kwargs)

    def open_tab(
        self, local_id: str = "s1", headers: dict[str, str] | None = None, key: str | None = ""
    ) -> Tab:
        """Connect a tab's WebSocket to `/ws/<local_id>` with our Origin and cookie, and send the page's
        key first (`key`: another one, None for none); closed at teardown."""
        # An absolute URL: a relative one would name the TestClient's own "testserver" as Host.
        socket = self.client.websocket_connect(
            f"ws://127.0.0.1:{PORT}/ws/{local_id}",
            headers=headers or {"origin": self.origin, "cookie": self.cookie},
        )
        opened = socket.__enter__()
        if key is not None:
            opened.send_text(key_message(key or self.key))
        tab = Tab(opened)
        self.tabs.append(tab)
        return tab


# The `start_app` fixture: called with an agent's name and args, and `run_app`'s keywords.
StartApp = Callable[..., InProcessApp]


class Tab:
    """One browser tab's WebSocket: it keeps every frame it received, and waits with deadlines."""

    def __init__(self, socket: WebSocketTestSession) -> None:
        self.socket = socket
        self.frames: list[str] = []
        self.closed = False

    @property
    def html(self) -> str:
        return "".join(self.frames)

    def send(self, **action: Any) -> None:
        self.socket.send_text(json.dumps(action))

    def send_raw(self, raw: str | bytes) -> None:
        if isinstance(raw, bytes):
            self.socket.send_bytes(raw)
        else:
            self.socket.send_text(raw)

    def wait_for(self, predicate: Callable[[str], bool], timeout: float = WAIT_TIMEOUT) -> str:
        """Read frames until `predicate(all_html_so_far)` holds; returns the HTML seen."""
        deadline = Deadline(timeout, "the tab's page")
        while not predicate(self.html):
            if deadline.passed:
                deadline.fail(f"received so far:\n{self.html[-4000:]}")
            frame = self._receive(deadline.remaining())
            if frame is not None:
                self.frames.append(frame)
        return self.html

    def wait_for_text(self, text: str, timeout: float = WAIT_TIMEOUT) -> str:
        return self.wait_for(lambda html: text in html, timeout)

    def first_frame(self, timeout: float = WAIT_TIMEOUT) -> str:
        """The snapshot a newly connected tab receives first."""
        self.wait_for(lambda html: bool(html), timeout)
        return self.frames[0]

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.socket.__exit__(None, None, None)

    def _receive(self, timeout: float) -> str | None:
        """The next text frame, or None if none came within `timeout`.

        The TestClient's own `receive()` blocks without a deadline, so a frame that never comes would hang
        the test: this waits on the same stream in the app's event loop, with one.
        """

        async def receive() -> Any:
            with anyio.move_on_after(timeout):
                return await self.socket._send_rx.receive()
            return None

        message = self.socket.portal.call(receive)
        if message is None:
            return None
        if message["type"] == "websocket.close":
            raise AssertionError(f"the server closed the tab ({message.get('code')}):\n{self.html[-4000:]}")
        return str(message["text"])


@contextmanager
def run_app(
    agent: str = "",
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    **settings: Any,
) -> Iterator[InProcessApp]:
    """Run the app in-process with `agent` (the demo agent when empty) until the block ends.

    `env` is set for the agent subprocess (it inherits this process's environment) and restored after.
    Yields once the token was exchanged for the cookie; the agent may still be starting.
    """
    defaults: dict[str, Any] = {"initialize_timeout": STARTUP_TIMEOUT}
    config = Settings(
        agent=agent,
        cwd=cwd or Path.cwd(),
        port=PORT,
        token=TOKEN,
        open_browser=False,
        **(defaults | settings),
    )
    with _environment({"WEBCLIENT_DEMO_CHUNK_DELAY_MS": "0", **(env or {})}):
        app = create_app(config, PORT)
        with TestClient(app, base_url=BASE) as client:
            running = InProcessApp(client, config, _exchange_token(client))
            try:
                yield running
            finally:
                for tab in running.tabs:
                    tab.close()


def _exchange_token(client: TestClient) -> httpx.Response:
    response: httpx.Response = client.get(f"/?token={TOKEN}", follow_redirects=False)
    assert response.status_code == 303, response.text
    client.cookies.clear()  # each request says explicitly whether it carries the cookie
    return response


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        for name, value in values.items():
            patch.setenv(name, value)
        yield


def wait_until_ready(tab: Tab, timeout: float = STARTUP_TIMEOUT) -> None:
    """Wait until the tab's status badge says the agent is ready: start-up gets its own long deadline."""
    tab.wait_for(status_is("ready"), timeout)
