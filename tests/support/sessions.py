"""A new, empty session on a running server, made through the app itself for each browser test.

It goes the way a tab goes: the WebSocket action `new_session` (answered with a navigate frame naming
`/s/<id>`), `close_session` for every other live session, then the new session's own WebSocket until its
sidebar and status say it is open and ready. Waits read frames with deadlines; nothing sleeps.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from websockets.sync.client import ClientConnection, connect

from tests.support.html import Page
from tests.support.live import LiveServer, http_get
from tests.support.polling import Deadline
from webclient.web.security import key_message

_NAVIGATE = re.compile(r'data-href="/s/([^"]+)"')
DEMO_OPENED = 'data-option-id="model"'  # the demo agent's session/new answer offers a model option


def wait_until_agent_ready(server: LiveServer, timeout: float) -> None:
    """Wait until the demo agent of a just started server is ready, its first session open and listed.

    Listed, too: the sidebar's list of stored sessions is refreshed once more after the start, and that
    refresh must not come after `fresh_session` has forgotten the stored sessions.
    """
    local_id = _current_local_id(server)
    with _Tab(server, local_id, timeout) as tab:
        tab.read_until(_alone_and_ready(local_id), "the agent to be ready")


def fresh_session(
    server: LiveServer, timeout: float, *, opened: str | None = DEMO_OPENED, stored_listed: bool = False
) -> str:
    """Open a new session, close every other one, wait until it is ready; returns its local id.

    `opened` is what the page shows once the agent answered `session/new` (the demo agent's config
    options); None for an agent that shows nothing of its own there. Unless `stored_listed`, it also
    waits until the sidebar lists none of the agent's stored sessions.
    """
    with _Tab(server, _current_local_id(server), timeout) as tab:
        tab.read_until(bool, "a snapshot")
        tab.send(action="new_session")
        found = _NAVIGATE.search(tab.read_until(lambda html: bool(_NAVIGATE.search(html)), "the session"))
    assert found is not None
    local_id = found.group(1)
    with _Tab(server, local_id, timeout) as tab:
        # A new session's sidebar is filled in once the agent opened it: until then it lists nobody.
        html = tab.read_until(lambda html: local_id in _live_ids(html), "its sidebar")
        for other in _live_ids(html):
            if other != local_id:
                tab.send(action="close_session", local_id=other)
        ready = _alone_and_ready(local_id, opened, stored_listed)
        tab.read_until(ready, f"session {local_id} alone and ready")
    return local_id


def _alone_and_ready(
    local_id: str, opened: str | None = DEMO_OPENED, stored_listed: bool = False
) -> Callable[[str], bool]:
    """The session is the only live one, open at the agent (the page shows `opened`, e.g. the config
    options that session/new offered), no stored session is listed (unless `stored_listed`), and it is
    ready."""

    def check(html: str) -> bool:
        page = Page.parse(html)
        return (
            page.values("session-link", "data-local-id") == [local_id]
            and (opened is None or opened in html)
            and (stored_listed or not page.values("load-session", "data-testid"))
            and page.status == "ready"
        )

    return check


def _live_ids(html: str) -> list[str]:
    """The local ids of the live sessions the tab's sidebar lists."""
    return Page.parse(html).values("session-link", "data-local-id")


def _current_local_id(server: LiveServer) -> str:
    """The session the server's front page shows (the most recent one): `/` redirects to its page."""
    response = http_get(server.base + "/", headers={"cookie": server.cookie()}, follow_redirects=False)
    assert response.status_code == 303, response.text[:2000]
    location = response.headers["location"]
    assert location.startswith("/s/"), location
    return location.removeprefix("/s/")


class _Tab:
    """A tab's WebSocket on one session, keeping what it received."""

    def __init__(self, server: LiveServer, local_id: str, timeout: float) -> None:
        self.timeout = timeout
        self.frames: list[str] = []
        self._key = server.key()
        self._connection = connect(
            server.ws_url_of(local_id),
            additional_headers={"cookie": server.cookie(), "origin": server.base},
            open_timeout=timeout,
            ping_interval=None,  # as a browser: no keepalive pings a busy server could miss
        )

    def __enter__(self) -> _Tab:
        self._connection.__enter__()
        self._connection.send(key_message(self._key))
        self.socket: ClientConnection = self._connection
        return self

    def __exit__(self, *exc: object) -> None:
        self._connection.__exit__(None, None, None)

    def send(self, **action: str) -> None:
        self.socket.send(json.dumps(action))

    def read_until(self, predicate: Callable[[str], bool], what: str) -> str:
        """Read frames until `predicate(all_html_so_far)` holds; fail after the tab's timeout."""
        deadline = Deadline(self.timeout, what)
        while not predicate(html := "".join(self.frames)):
            if deadline.passed:
                page = Page.parse(html)
                live, stored = (
                    page.values("session-link", "data-local-id"),
                    page.values("stored-session", "data-session-id"),
                )
                deadline.fail(f"live sessions: {live}, stored: {stored}, status: {page.status}")
            try:
                frame = self.socket.recv(timeout=deadline.remaining())
            except TimeoutError:
                continue
            self.frames.append(frame if isinstance(frame, str) else frame.decode())
        return html
