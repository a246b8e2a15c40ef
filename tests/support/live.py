"""A real webclient server listening on a real port, for integration and browser tests.

`run_server` starts it exactly as a user does (`python -m webclient --port 0 --no-browser`) in a
subprocess, reads its printed URL, and keeps its output so a failing start shows what went wrong: for what
only the whole program can show (the command line, start-up, stopping, the process's memory).

`serve_in_thread` runs the same server, configured from the same command line, on a thread of the test's
own process. It answers on its port like the subprocess, with a real agent subprocess of its own; it only
skips a Python start and the import of the web stack, which the test process already paid for (each
subprocess server costs over half a second of CPU before it answers).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import ssl
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn
import websockets

from tests.support.html import Frames, Page
from tests.support.polling import Deadline, wait_until
from webclient.web.cli import bind, build_server, settings_from_args, url_for
from webclient.web.security import key_in, key_message

ROOT = Path(__file__).resolve().parents[2]
AGENTS = ROOT / "tests" / "agents"
URL_PATTERN = re.compile(r"(http://\S+/\?token=\S+)")
# One TLS context for all the tests' requests. `httpx.get` builds a client, and with it a TLS context that
# loads the CA bundle: 20 ms of CPU for each request, though every one here is plain HTTP to loopback.
_TLS = ssl.create_default_context()
# The demo agent's streaming in test servers: quicker than its 15 ms, still chunk by chunk.
DEMO_PACE = {"WEBCLIENT_DEMO_CHUNK_DELAY_MS": "5"}


def http_get(url: str, **kwargs: Any) -> httpx.Response:
    """`httpx.get(url, **kwargs)`, without building a TLS context for it."""
    return httpx.get(url, verify=_TLS, **kwargs)


def scripted_agent(name: str, *args: str) -> str:
    """The command line of one of the scripted agents in tests/agents/."""
    return " ".join(agent_argv(name, *args))


def agent_argv(name: str, *args: str) -> list[str]:
    """The argv of one of the scripted agents in tests/agents/."""
    return [sys.executable, str(AGENTS / f"{name}.py"), *args]


@dataclass
class LiveServer:
    """A running server. `url` is where a browser starts: the printed token link, or a session's page.

    The token is exchanged for the cookie once per server (a second exchange may be refused) and the cookie
    is shared by every copy made with `dataclasses.replace`.
    """

    url: str
    process: subprocess.Popen[str] | None  # None for a server on a thread of this process
    output: list[str] = field(default_factory=list)
    base: str = ""
    token: str = ""
    cookies: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)  # the page's key the token link gave, once known

    def __post_init__(self) -> None:
        if not self.base:
            self.base = self.url.split("/?", 1)[0]
        if not self.token and "token=" in self.url:
            self.token = self.url.split("token=", 1)[1]

    @property
    def popen(self) -> subprocess.Popen[str]:
        """The server's own process: `run_server`'s (a server on a thread has none)."""
        assert self.process is not None, "this server runs on a thread of the test process"
        return self.process

    @property
    def port(self) -> int:
        return int(self.base.rsplit(":", 1)[1])

    @property
    def ws_url(self) -> str:
        """The WebSocket of the first session, the one a fresh server opens by itself."""
        return self.ws_url_of("s1")

    def ws_url_of(self, local_id: str) -> str:
        return self.base.replace("http://", "ws://") + f"/ws/{local_id}"

    def cookie(self) -> str:
        """The session cookie: the token is exchanged on the first call, as a browser's first visit does."""
        if not self.cookies:
            response = http_get(f"{self.base}/?token={self.token}", follow_redirects=False)
            assert response.status_code == 303, response.text
            self.cookies.append(response.headers["set-cookie"].split(";", 1)[0])
            key = key_in(response.headers["location"])
            if key is not None:
                self.keys.append(key)
        return self.cookies[0]

    def key(self) -> str:
        """The page's key (in the fragment of where the token link redirects), after `cookie()`."""
        self.cookie()
        assert self.keys, "the token link gave no key"
        return self.keys[0]

    def log(self) -> str:
        return "".join(self.output)


# The `serve` fixture: called with a scripted agent's name and args, and its `env`.
Serve = Callable[..., LiveServer]


@contextmanager
def run_server(
    agent: str | None = None,
    cwd: Path | None = None,
    extra_args: Sequence[str] = (),
    env: dict[str, str] | None = None,
    startup_timeout: float = 60.0,
) -> Iterator[LiveServer]:
    """Start the server; yield it once it printed its URL; stop it and reap it afterwards."""
    argv = [sys.executable, "-m", "webclient", *_command_line(agent, cwd, extra_args)]
    full_env = {**os.environ, "PYTHONUNBUFFERED": "1", **DEMO_PACE, **(env or {})}
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
        deadline = Deadline(startup_timeout, "webclient to answer")
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
        # The pipe's end of ours: left to the garbage collector, it is a ResourceWarning in a later test.
        if process.stdout is not None:
            process.stdout.close()


@contextmanager
def serve_in_thread(
    agent: str | None = None,
    cwd: Path | None = None,
    extra_args: Sequence[str] = (),
    agent_env: dict[str, str] | None = None,
    startup_timeout: float = 60.0,
    **settings: Any,
) -> Iterator[LiveServer]:
    """Run the server on a thread of this process; yield it once it answers; stop it afterwards.

    It is configured by the command line a user would give (`extra_args`, `--agent`, `--cwd`), the
    settings are read as the CLI reads them, and the uvicorn server is the one the CLI builds. The agent's
    environment is this process's with `agent_env` added (as `--agent-env KEY=VALUE`). Keyword arguments
    set settings the command line has no flag for (as their `WEBCLIENT_*` variables would); the server's
    own environment is the test process's, so a test that needs another uses `run_server`.
    """
    argv = _command_line(agent, cwd, extra_args)
    paced = DEMO_PACE if agent is None else {}
    for pair in {**paced, **(agent_env or {})}.items():
        argv += ["--agent-env", "=".join(pair)]
    config = settings_from_args(argv).model_copy(update=settings)
    config.check_host()
    sock = bind(config.host, config.port)
    server = build_server(config, sock)
    failure: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(server.serve(sockets=[sock]))
        except BaseException as exc:  # reported by the test thread, which is waiting on it
            failure.append(exc)

    thread = threading.Thread(target=run, name=f"webclient:{sock.getsockname()[1]}", daemon=True)
    thread.start()
    try:
        deadline = Deadline(startup_timeout, "webclient to answer")
        started = wait_until(
            lambda: server.started or failure or not thread.is_alive(), startup_timeout, "webclient to start"
        )
        if started is not True:
            raise RuntimeError(f"webclient did not start on its thread: {failure or 'the thread ended'}")
        live = LiveServer(url=url_for(config.host, sock.getsockname()[1], config.token), process=None)
        _wait_until_answering(live, deadline)
        yield live
    finally:
        _stop_thread_server(server, thread)
        sock.close()


def _stop_thread_server(server: uvicorn.Server, thread: threading.Thread) -> None:
    """Stop as Ctrl+C does (the lifespan stops the agent), forcing it if a connection holds it up."""
    server.should_exit = True
    thread.join(timeout=15)
    if thread.is_alive():
        server.force_exit = True
        thread.join(timeout=15)
    if thread.is_alive():
        raise RuntimeError("webclient on its thread did not stop within 30 s")


def _command_line(agent: str | None, cwd: Path | None, extra_args: Sequence[str]) -> list[str]:
    """webclient's arguments for a test server: any free port, no browser, then the test's own."""
    argv = ["--port", "0", "--no-browser", *extra_args]
    if agent is not None:
        argv += ["--agent", agent]
    if cwd is not None:
        argv += ["--cwd", str(cwd)]
    return argv


def _wait_until_answering(server: LiveServer, deadline: Deadline) -> None:
    # The socket already listens, so this request waits in its queue until the server takes it.
    try:
        http_get(server.base + "/favicon.ico", timeout=max(deadline.remaining(), 1.0))
    except httpx.HTTPError as exc:
        raise RuntimeError(f"webclient did not answer ({exc}):\n" + "".join(server.output)) from None


class Tab:
    """A WebSocket client that behaves like one browser tab: it keeps the frames it received."""

    def __init__(self, socket: Any) -> None:
        self.socket = socket
        self.frames: list[str] = []
        self._built = Frames()
        self._built_upto = 0  # how many of `frames` are in `_built`

    @property
    def html(self) -> str:
        return "".join(self.frames)

    async def send(self, **action: Any) -> None:
        await self.socket.send(json.dumps(action))

    async def wait_for(self, predicate: Any, timeout: float = 20.0) -> str:
        """Read frames until `predicate(all_html_so_far)` holds; returns the HTML seen."""
        await self._read_until(lambda: bool(predicate(self.html)), timeout)
        return self.html

    async def wait_for_page(self, predicate: Callable[[Page], bool], timeout: float = 20.0) -> Page:
        """As `wait_for`, for a tab that receives a flood: `predicate` is asked of the page the frames
        built, each frame swapped in once (`html.Frames`), instead of all the html received so far."""
        await self._read_until(lambda: predicate(self.page), timeout)
        return self.page

    async def _read_until(self, done: Callable[[], bool], timeout: float) -> None:
        """Read frames until `done()`, asked before the first and after each frame."""
        deadline = Deadline(timeout, "the tab's page")
        while not done():
            if deadline.passed:
                deadline.fail(f"received so far:\n{self.html[-4000:]}")
            try:
                frame = await asyncio.wait_for(self.socket.recv(), timeout=deadline.remaining())
            except TimeoutError:
                continue
            self.frames.append(frame)

    @property
    def page(self) -> Page:
        """The page this tab shows now, built frame by frame (see `wait_for_page`)."""
        for frame in self.frames[self._built_upto :]:
            self._built.add(frame)
        self._built_upto = len(self.frames)
        return self._built.page

    async def close(self) -> None:
        await self.socket.close()

    async def wait_for_text(self, text: str, timeout: float = 20.0) -> str:
        return await self.wait_for(lambda html: text in html, timeout)


async def open_tab(
    server: LiveServer, cookie: str | None = None, local_id: str = "s1", key: str | None = ""
) -> Tab:
    """A tab's WebSocket, which sends the page's key first, as a page does (`key`: another one, None for
    none)."""
    socket = await websockets.connect(
        server.ws_url_of(local_id),
        additional_headers={"cookie": cookie or server.cookie(), "origin": server.base},
        max_size=256 * 1024 * 1024,  # a browser takes frames of any size; large tool output makes large ones
        # Nor does a browser ping: a server busy for seconds on a loaded machine must not close the tab.
        ping_interval=None,
    )
    if key is not None:
        await socket.send(key_message(key or server.key()))
    # A test may leave its tab open; the task closes it as the test's event loop ends (which cancels every
    # task first), rather than the loop closing under an open connection (a ResourceWarning).
    owner = asyncio.create_task(_close_at_loop_end(socket), name="tab-owner")
    _owners.add(owner)
    owner.add_done_callback(_owners.discard)
    return Tab(socket)


# The owners' tasks, held here: the event loop keeps only weak references to its tasks.
_owners: set[asyncio.Task[None]] = set()


async def _close_at_loop_end(socket: Any) -> None:
    """Wait until the tab is closed; if the loop cancels this first, close it."""
    try:
        await socket.wait_closed()
    finally:
        await socket.close()
