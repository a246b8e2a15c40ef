"""A real webclient server in a subprocess, for integration and browser tests.

The server is started exactly as a user starts it (`python -m webclient --port 0 --no-browser`), its
printed URL is read, and its output is kept so a failing start shows what went wrong.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

ROOT = Path(__file__).resolve().parent.parent
AGENTS = Path(__file__).resolve().parent / "agents"
URL_PATTERN = re.compile(r"(http://\S+/\?token=\S+)")


def scripted_agent(name: str, *args: str) -> str:
    """The command line of one of the scripted agents in tests/agents/."""
    return " ".join([sys.executable, str(AGENTS / f"{name}.py"), *args])


@dataclass
class LiveServer:
    url: str
    process: subprocess.Popen[str]
    output: list[str] = field(default_factory=list)

    @property
    def base(self) -> str:
        return self.url.split("/?", 1)[0]

    @property
    def token(self) -> str:
        return self.url.split("token=", 1)[1]

    @property
    def port(self) -> int:
        return int(self.base.rsplit(":", 1)[1])

    def ws_url(self, local_id: str) -> str:
        return self.base.replace("http://", "ws://") + f"/ws/{local_id}"

    def most_recent_session(self, cookie: str) -> str:
        """The local id of the session a plain visit opens (`/` redirects to its page)."""
        response = httpx.get(self.base + "/", headers={"cookie": cookie}, follow_redirects=False)
        assert response.status_code == 303, response.text
        return response.headers["location"].rsplit("/", 1)[1]

    def cookie(self) -> str:
        """Exchange the token for the session cookie, as a browser's first visit does."""
        response = httpx.get(self.url, follow_redirects=False)
        assert response.status_code == 303, response.text
        return response.headers["set-cookie"].split(";", 1)[0]

    def log(self) -> str:
        return "".join(self.output)


@contextmanager
def run_server(
    agent: str | None = None,
    cwd: Path | None = None,
    extra_args: Sequence[str] = (),
    env: dict[str, str] | None = None,
    startup_timeout: float = 30.0,
) -> Iterator[LiveServer]:
    """Start the server; yield it once it printed its URL; stop it and reap it afterwards."""
    argv = [sys.executable, "-m", "webclient", "--port", "0", "--no-browser", *extra_args]
    if agent is not None:
        argv += ["--agent", agent]
    if cwd is not None:
        argv += ["--cwd", str(cwd)]
    full_env = {**os.environ, "PYTHONUNBUFFERED": "1", "WEBCLIENT_DEMO_CHUNK_DELAY_MS": "5", **(env or {})}
    process = subprocess.Popen(
        argv, cwd=ROOT, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    output: list[str] = []
    found = threading.Event()
    url: list[str] = []

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            output.append(line)
            match = URL_PATTERN.search(line)
            if match and not url:
                url.append(match.group(1))
                found.set()

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + startup_timeout
        if not found.wait(startup_timeout):
            raise RuntimeError("webclient did not start:\n" + "".join(output))
        server = LiveServer(url=url[0], process=process, output=output)
        # The URL is printed as soon as the socket listens, before the app is imported: wait until it answers.
        _wait_until_answering(server, deadline)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        reader.join(timeout=5)


def _wait_until_answering(server: LiveServer, deadline: float) -> None:
    # The socket already listens, so this request waits in its queue until the server takes it.
    try:
        httpx.get(server.base + "/favicon.ico", timeout=max(deadline - time.monotonic(), 1.0))
    except httpx.HTTPError as exc:
        raise RuntimeError(f"webclient did not answer ({exc}):\n" + "".join(server.output)) from None


class Tab:
    """A WebSocket client that behaves like one browser tab: it keeps the frames it received."""

    def __init__(self, socket: Any) -> None:
        self.socket = socket
        self.frames: list[str] = []

    @property
    def html(self) -> str:
        return "".join(self.frames)

    async def send(self, **action: Any) -> None:
        await self.socket.send(json.dumps(action))

    async def wait_for(self, predicate: Any, timeout: float = 20.0) -> str:
        """Read frames until `predicate(all_html_so_far)` holds; returns the HTML seen."""
        deadline = time.monotonic() + timeout
        while not predicate(self.html):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"timed out; received so far:\n{self.html[-4000:]}")
            try:
                frame = await asyncio.wait_for(self.socket.recv(), timeout=remaining)
            except TimeoutError:
                continue
            self.frames.append(frame)
        return self.html

    async def close(self) -> None:
        await self.socket.close()

    async def wait_for_text(self, text: str, timeout: float = 20.0) -> str:
        return await self.wait_for(lambda html: text in html, timeout)


async def open_tab(server: LiveServer, cookie: str | None = None, session: str | None = None) -> Tab:
    """A tab on `session` (a local id; default: the most recent session, where a plain visit goes)."""
    cookie = cookie or server.cookie()
    local_id = session or server.most_recent_session(cookie)
    socket = await websockets.connect(
        server.ws_url(local_id), additional_headers={"cookie": cookie, "origin": server.base}
    )
    return Tab(socket)
