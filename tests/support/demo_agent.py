"""Drive the real demo agent as a subprocess over stdio, the way a client does.

The harness sends its own raw ``initialize`` params (the SDK's models would drop ``promptSuggestions``) and
records every incoming message with a Connection observer, which the SDK calls synchronously in wire order:
so tests can assert the order of updates and responses exactly as a client sees it.

A module's tests share their agents (one per distinct ``initialize`` params, see ``SharedAgents``); each
test sees only its own requests' responses and its own sessions' messages. Tests that restart an agent or
start it with settings of their own use ``running_agent``.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import pytest
from acp.connection import Connection, StreamDirection, StreamEvent
from acp.exceptions import RequestError
from acp.stdio import spawn_stdio_connection

from tests.support.polling import eventually
from webclient.domain.files import FileAccess, FileAccessDenied, FileAccessError, FileMissing

REPO_ROOT = Path(__file__).resolve().parents[2]
WAIT_TIMEOUT = 20.0  # generous: a busy 2-core CI box
# The agent's prediction delay in these tests, and how long "nothing arrives" is watched for: 50x that.
PREDICTION_DELAY_MS = 5
QUIET_PERIOD = 0.25

SUGGESTIONS: dict[str, Any] = {"session": {"promptSuggestions": {}}}
SUGGESTIONS_WITH_IMAGES: dict[str, Any] = {"session": {"promptSuggestions": {"image": {}}}}
NO_SUGGESTIONS: dict[str, Any] = {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}
# A client like webclient: file access through the client, boolean config options, prompt suggestions.
FULL_CLIENT: dict[str, Any] = {
    "fs": {"readTextFile": True, "writeTextFile": True},
    "terminal": False,
    "session": {"promptSuggestions": {}, "configOptions": {"boolean": {}}},
}

Json = dict[str, Any]
T = TypeVar("T")

# The line the demo agent's review adds, and src/app.py of the `workspace` fixture before it.
REVIEW_LINE = "# reviewed by the demo agent"
ORIGINAL_APP = (
    '"""The app."""\n\n\nclass Greeter:\n    """Says hello."""\n\n\n'
    "def main(argv, *, loud=False):\n    return 0\n"
)

# A module whose tests take the `agent` fixture sets `pytestmark = SHARES_AGENTS`: its tests then run in
# one event loop, the module's, where its shared agents' connections live.
SHARES_AGENTS = pytest.mark.asyncio(loop_scope="module")


class ClientResponder:
    """The client side of the agent's requests: fs through ``webclient.domain.files``, and permission answers.

    ``permission_answer`` is the optionId to select; None means "wait for our own ``session/cancel``, then
    answer ``cancelled``", as ACP requires of a client that cancels a turn.
    """

    def __init__(self, workspace: Path) -> None:
        self.files = FileAccess([workspace])
        self.permission_answer: str | None = "apply"
        self.cancel_sent = asyncio.Event()

    async def __call__(self, method: str, params: Any, is_notification: bool) -> Any:
        if is_notification:
            return None
        if method == "fs/read_text_file":
            content = self._files(
                lambda: self.files.read_text(params["path"], params.get("line"), params.get("limit"))
            )
            return {"content": content}
        if method == "fs/write_text_file":
            self._files(lambda: self.files.write_text(params["path"], params["content"]))
            return {}
        if method == "session/request_permission":
            if self.permission_answer is None:
                await self.cancel_sent.wait()
                return {"outcome": {"outcome": "cancelled"}}
            return {"outcome": {"outcome": "selected", "optionId": self.permission_answer}}
        raise RequestError.method_not_found(method)

    @staticmethod
    def _files(action: Callable[[], Any]) -> Any:
        try:
            return action()
        except FileMissing as exc:
            raise RequestError.resource_not_found(str(exc)) from exc
        except FileAccessDenied as exc:
            raise RequestError.invalid_params({"reason": str(exc)}) from exc
        except FileAccessError as exc:
            raise RequestError.internal_error({"reason": str(exc)}) from exc


class WireLog:
    """What a test client received from the agent, in wire order, and how to wait for it.

    Shared by the v1 harness (SDK Connection) and the v2 harness (raw lines); both fill ``received``
    with every incoming message (batch entries one by one) and ``stderr`` with the agent's stderr.
    """

    received: list[Json]
    stderr: bytearray

    def requests(self, method: str | None = None, since: int = 0) -> list[Json]:
        """The agent's requests to the client (fs, permission) in wire order."""
        return [
            m
            for m in self.received[since:]
            if "method" in m and "id" in m and (method is None or m["method"] == method)
        ]

    def sequence(self, since: int = 0) -> list[str]:
        """What arrived since ``since``, one label each: an update's kind, a request's method, "response"."""
        labels = []
        for m in self.received[since:]:
            if m.get("method") == "session/update":
                labels.append(m["params"]["update"]["sessionUpdate"])
            elif "method" in m:
                labels.append(m["method"])
            else:
                labels.append("response")
        return labels

    # -- recording -------------------------------------------------------------------------------------
    def updates(
        self, session_id: str | None = None, kind: str | None = None, since: int = 0, until: int | None = None
    ) -> list[Json]:
        """The ``update`` of each ``session/update`` in wire order, within ``received[since:until]``."""
        return [
            message["params"]["update"]
            for message in self.received[since:until]
            if message.get("method") == "session/update"
            and (session_id is None or message["params"]["sessionId"] == session_id)
            and (kind is None or message["params"]["update"].get("sessionUpdate") == kind)
        ]

    def suggestion_lists(self, session_id: str | None = None, since: int = 0) -> list[Any]:
        return [u["suggestions"] for u in self.updates(session_id, "prompt_suggestions_update", since)]

    def mark(self) -> int:
        """A position in the received stream, for ``since=``."""
        return len(self.received)

    def index_of_update(self, kind: str, since: int = 0) -> int:
        """Where the first ``session/update`` of this kind at or after ``since`` was received."""
        return next(
            i
            for i, m in enumerate(self.received)
            if i >= since
            and m.get("method") == "session/update"
            and m["params"]["update"]["sessionUpdate"] == kind
        )

    def index_of_response(self, request_id: int) -> int:
        """Where the response to our request ``request_id`` (0 = initialize, then 1, 2, ...) was received."""
        return next(i for i, m in enumerate(self.received) if m.get("id") == request_id and "method" not in m)

    # -- waiting ---------------------------------------------------------------------------------------
    async def wait_for(self, condition: Callable[[], T], timeout: float = WAIT_TIMEOUT) -> T:
        """Poll until ``condition()`` is truthy and return its value; fail with the agent's stderr."""
        return await eventually(
            condition, timeout, "the condition", lambda: f"agent stderr:\n{self.stderr.decode()}"
        )

    async def assert_stays_true(self, condition: Callable[[], bool], period: float = QUIET_PERIOD) -> None:
        """Poll for ``period`` and fail as soon as ``condition()`` turns false."""
        deadline = time.monotonic() + period
        while time.monotonic() < deadline:
            assert condition()
            await asyncio.sleep(0.01)
        assert condition()

    async def wait_for_suggestions(self, session_id: str, since: int = 0, count: int = 1) -> list[Any]:
        """Wait until at least ``count`` suggestion lists arrived after ``since``; returns them all."""
        await self.wait_for(lambda: len(self.suggestion_lists(session_id, since)) >= count)
        return self.suggestion_lists(session_id, since)

    async def wait_for_offer(self, session_id: str, since: int = 0) -> Any:
        """Wait for a non-empty suggestion list after ``since`` (a withdrawal does not count); return it."""
        offers = await self.wait_for(lambda: [s for s in self.suggestion_lists(session_id, since) if s])
        return offers[0]

    def message_text(self, session_id: str, since: int = 0, kind: str = "agent_message_chunk") -> str:
        return "".join(u["content"]["text"] for u in self.updates(session_id, kind, since))


# The running agent a view attaches to: ``RunningAgent`` (v1) or ``V2Agent``.
Agent = TypeVar("Agent", bound="Viewed")


class Viewed(Protocol):
    """What a view needs of the agent it attaches to."""

    process: asyncio.subprocess.Process
    stderr: bytearray
    view: Any


class AgentView(WireLog, Generic[Agent]):
    """A test's view of an agent that other tests of its module may share: it records only the answers to
    its own requests and the messages that name one of its own sessions (or none).

    The agent (``RunningAgent`` or ``V2Agent``) reports every message to its current ``view``.
    """

    _agent: Agent | None = None
    _sessions: set[str]
    stderr: bytearray

    def attach(self, agent: Agent) -> None:
        """Report to this view from now on: the agent's messages, and its stderr."""
        self._agent = agent
        self.stderr = agent.stderr
        agent.view = self

    @property
    def agent(self) -> Agent:
        if self._agent is None:
            raise RuntimeError("initialize first: a shared agent is chosen by the initialize params")
        return self._agent

    @property
    def process(self) -> asyncio.subprocess.Process:
        return self.agent.process

    def detach(self) -> None:
        if self._agent is not None and self._agent.view is self:
            self._agent.view = None

    def answers_us(self, response: Json) -> bool:
        """Whether a response answers one of this test's requests."""
        raise NotImplementedError

    def take(self, message: Json) -> None:
        """Called for every message the agent sends: record it if it is about this test."""
        if "method" not in message:
            mine = self.answers_us(message)
            if mine and isinstance(result := message.get("result"), dict) and "sessionId" in result:
                self._sessions.add(result["sessionId"])
        else:
            params = message.get("params")
            session = params.get("sessionId") if isinstance(params, dict) else None
            mine = session is None or session in self._sessions
        if mine:
            self.received.append(message)


@dataclass
class RunningAgent:
    """A demo agent subprocess, its SDK connection, and the test view it currently reports to."""

    conn: Connection
    process: asyncio.subprocess.Process
    stderr: bytearray = field(default_factory=bytearray)
    view: AgentHarness | None = None
    next_request_id: int = 0  # the id our next request gets: the SDK numbers them 0, 1, 2, ...
    initialize_result: Json | None = None

    def observe(self, event: StreamEvent) -> None:
        message = event.message
        if event.direction is StreamDirection.OUTGOING:
            if "method" in message and "id" in message:
                self.next_request_id = message["id"] + 1
            if self.view is not None:
                self.view.sent(message)
        elif self.view is not None:
            self.view.take(message)

    async def send_initialize(self, params: Json) -> Json:
        result: Json = await self.conn.send_request("initialize", params)
        return result

    async def handle(self, method: str, params: Any, is_notification: bool) -> Any:
        """The client side of the agent's requests, answered by the current test's responder."""
        if self.view is None:
            raise RequestError.method_not_found(method)
        return await self.view.client(method, params, is_notification)


class AgentHarness(AgentView[RunningAgent]):
    """One test's view of a running demo agent: its own requests and everything about its own sessions.

    The agent may be shared by the module's tests (``SharedAgents``), so the view records only responses
    to requests sent since the test began and messages naming one of the test's sessions: each test reads
    the wire in order as if the agent were its own. Requests are numbered per test, as ``index_of_response``
    takes them: 0 is ``initialize`` (which a shared agent answered for an earlier test), then 1, 2, ...
    """

    def __init__(self, workspace: Path, shared: SharedAgents[RunningAgent] | None = None) -> None:
        self.workspace = workspace
        self.received: list[Json] = []
        self.stderr = bytearray()
        self.client = ClientResponder(workspace)
        self._shared = shared
        self._agent: RunningAgent | None = None
        self._first_id = 0  # the wire id of this test's first request
        self._initialized_before = False  # a shared agent: request number 0 was never sent by this test
        self._sessions: set[str] = set()

    # -- the agent -------------------------------------------------------------------------------------
    def attach(self, agent: RunningAgent, *, initialized: bool = False) -> None:
        self._first_id = agent.next_request_id
        self._initialized_before = initialized
        super().attach(agent)

    @property
    def conn(self) -> Connection:
        return self.agent.conn

    # -- recording -------------------------------------------------------------------------------------
    def sent(self, message: Json) -> None:
        """Called for every message we send: a session it names is this test's."""
        if isinstance(params := message.get("params"), dict) and isinstance(params.get("sessionId"), str):
            self._sessions.add(params["sessionId"])

    def answers_us(self, response: Json) -> bool:
        # Ours if it answers a request sent since the test began: the SDK numbers requests in order.
        return isinstance(response.get("id"), int) and response["id"] >= self._first_id

    def index_of_response(self, request_id: int) -> int:
        """Where the response to this test's request number ``request_id`` (0 = initialize) was received."""
        wire_id = self._first_id + request_id - (1 if self._initialized_before else 0)
        return next(i for i, m in enumerate(self.received) if m.get("id") == wire_id and "method" not in m)

    # -- requests --------------------------------------------------------------------------------------
    async def initialize(self, client_capabilities: Any = None, *, omit_capabilities: bool = False) -> Json:
        """Initialize with these capabilities; a shared agent initialised with the same params answers."""
        params: Json = {"protocolVersion": 1, "clientInfo": {"name": "tests", "version": "0"}}
        if not omit_capabilities:
            params["clientCapabilities"] = client_capabilities
        if self._shared is not None:
            agent = await self._shared.initialized(params)
            self.attach(agent, initialized=True)
            assert agent.initialize_result is not None
            return copy.deepcopy(agent.initialize_result)
        result: Json = await self.conn.send_request("initialize", params)
        return result

    async def new_session(self, cwd: Path | None = None) -> str:
        """Create a session and wait for its ``available_commands_update``, which follows the response.

        Waiting keeps that update out of the first turn's updates, so tests can reason about turns alone.
        """
        cwd = cwd or self.workspace
        result = await self.conn.send_request("session/new", {"cwd": str(cwd), "mcpServers": []})
        session_id: str = result["sessionId"]
        await self.wait_for(lambda: self.updates(session_id, "available_commands_update"))
        return session_id

    async def load_session(self, session_id: str, cwd: Path | None = None) -> Json:
        self._sessions.add(session_id)  # before sending: the replay comes before the response
        params = {"sessionId": session_id, "cwd": str(cwd or self.workspace), "mcpServers": []}
        result: Json = await self.conn.send_request("session/load", params)
        return result

    async def prompt(self, session_id: str, *blocks: Json | str) -> Json:
        """Send ``session/prompt``; plain strings become text blocks. Returns the response result."""
        self._sessions.add(session_id)
        prompt = [{"type": "text", "text": b} if isinstance(b, str) else b for b in blocks]
        result: Json = await self.conn.send_request(
            "session/prompt", {"sessionId": session_id, "prompt": prompt}
        )
        return result

    async def cancel(self, session_id: str) -> None:
        await self.conn.send_notification("session/cancel", {"sessionId": session_id})
        self.client.cancel_sent.set()


async def _drain(stream: asyncio.StreamReader | None, into: bytearray) -> None:
    # The SDK pipes the child's stderr but never reads it; a chatty agent would block on a full pipe.
    if stream is None:
        return
    while chunk := await stream.read(65536):
        into.extend(chunk)


@asynccontextmanager
async def spawned_agent(
    workspace: Path, state_dir: Path, env: dict[str, str] | None = None
) -> AsyncIterator[RunningAgent]:
    """Spawn ``python -m webclient.demo_agent`` in ``workspace``; stopped when the block ends."""
    child_env = {
        "PYTHONPATH": str(REPO_ROOT),
        "WEBCLIENT_DEMO_STATE_DIR": str(state_dir),
        "WEBCLIENT_DEMO_CHUNK_DELAY_MS": "0",
        "WEBCLIENT_DEMO_PREDICTION_DELAY_MS": str(PREDICTION_DELAY_MS),
        **(env or {}),
    }
    agent: RunningAgent | None = None

    def observe(event: StreamEvent) -> None:
        assert agent is not None
        agent.observe(event)

    async def handle(method: str, params: Any, is_notification: bool) -> Any:
        assert agent is not None
        return await agent.handle(method, params, is_notification)

    command = (sys.executable, "-m", "webclient.demo_agent")
    async with spawn_stdio_connection(
        handle, *command, cwd=workspace, env=child_env, observers=[observe]
    ) as (conn, process):
        agent = RunningAgent(conn, process)
        drain = asyncio.create_task(_drain(process.stderr, agent.stderr))
        try:
            yield agent
        finally:
            drain.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await drain


@asynccontextmanager
async def running_agent(
    workspace: Path, state_dir: Path, env: dict[str, str] | None = None
) -> AsyncIterator[AgentHarness]:
    """A demo agent of the test's own in ``workspace``, not yet initialised: for restarts and settings."""
    async with spawned_agent(workspace, state_dir, env) as running:
        harness = AgentHarness(workspace)
        harness.attach(running, initialized=False)
        yield harness


class Shareable(Protocol):
    """What ``SharedAgents`` needs of a running agent, v1 or v2."""

    process: asyncio.subprocess.Process
    initialize_result: Json | None

    async def send_initialize(self, params: Json) -> Json: ...


A = TypeVar("A", bound=Shareable)


class SharedAgents(Generic[A]):
    """The demo agents one module's tests share: one per distinct ``initialize`` params, started on first
    use, initialised once, and started again when a test left one exited.

    A demo agent takes about half a second of CPU to start (the SDK's schema models): an agent per test
    was most of what these tests cost. Each test still has its own workspace, sessions and responder.
    """

    def __init__(
        self,
        root: Path,
        stack: contextlib.AsyncExitStack,
        launch: Callable[[Path, Path], contextlib.AbstractAsyncContextManager[A]],
    ) -> None:
        self._root = root
        self._stack = stack
        self._launch = launch  # (workspace, state_dir) -> the running agent, stopped when the module ends
        self._agents: dict[str, A] = {}
        self._started = 0

    async def initialized(self, params: Json) -> A:
        key = json.dumps(params, sort_keys=True)
        agent = self._agents.get(key)
        if agent is None or agent.process.returncode is not None:
            self._started += 1
            home = self._root / f"agent-{self._started}"
            home.mkdir()
            agent = await self._stack.enter_async_context(self._launch(home, home / "state"))
            agent.initialize_result = await agent.send_initialize(params)
            self._agents[key] = agent
        return agent
