"""A raw ACP v2 test client for the demo agent: JSON-RPC lines over the subprocess's stdio.

The SDK cannot be the client here (its models are v1 and its reader dies on a batch array), so this
harness writes and reads lines itself. It records every incoming message in wire order (batch entries one
by one, the raw lines as well), answers the agent's permission requests, and waits with generous deadlines.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.demo_agent import (
    PREDICTION_DELAY_MS,
    REPO_ROOT,
    WAIT_TIMEOUT,
    AgentView,
    Json,
    SharedAgents,
)

V2_SUGGESTIONS: Json = {"session": {"promptSuggestions": {}}}
V2_NO_SUGGESTIONS: Json = {}
CLIENT_INFO: Json = {"name": "tests", "version": "0"}
EXIT_TIMEOUT = 20.0


class RpcFailure(Exception):
    """A JSON-RPC error answer to one of our requests."""

    def __init__(self, error: Json) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.code: int = error.get("code", 0)
        self.data: Any = error.get("data")


@dataclass
class V2Agent:
    """A demo agent subprocess spoken to in raw ACP v2 lines, and the test view it reports to.

    It keeps every line it read (``lines``), numbers our requests across every test that shares it (ids
    must stay unique on one connection), and has the current view answer the agent's requests.
    """

    process: asyncio.subprocess.Process
    lines: list[Any] = field(default_factory=list)
    stderr: bytearray = field(default_factory=bytearray)
    view: V2Harness | None = None
    last_id: int = 0
    initialize_result: Json | None = None
    _pending: dict[Any, asyncio.Future[Json]] = field(default_factory=dict)
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    async def send_line(self, payload: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps(payload) + "\n").encode())
        await self.process.stdin.drain()

    async def request(self, method: str, params: Json, request_id: int | None = None) -> Json:
        """Send a request and return its result; an error answer raises RpcFailure."""
        if request_id is None:
            self.last_id += 1
            request_id = self.last_id
        if self.view is not None:
            self.view.sent(request_id, params)
        future: asyncio.Future[Json] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        await self.send_line({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        answer = await asyncio.wait_for(future, WAIT_TIMEOUT)
        if "error" in answer:
            raise RpcFailure(answer["error"])
        result: Json = answer["result"]
        return result

    async def send_initialize(self, params: Json) -> Json:
        return await self.request("initialize", params, request_id=0)

    async def read_loop(self) -> None:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            payload = json.loads(line)
            self.lines.append(payload)
            for message in payload if isinstance(payload, list) else [payload]:
                if self.view is not None:
                    self.view.take(message)
                self._route(message)

    def _route(self, message: Json) -> None:
        if "method" in message and "id" in message:
            task = asyncio.create_task(self._answer(message, self.view))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif "method" not in message and (future := self._pending.pop(message.get("id"), None)):
            future.set_result(message)

    async def _answer(self, request: Json, view: V2Harness | None) -> None:
        if request["method"] != "session/request_permission":
            error = {"code": -32601, "message": "Method not found"}
            await self.send_line({"jsonrpc": "2.0", "id": request["id"], "error": error})
            return
        answer = view.permission_answer if view is not None else None
        if view is not None and answer is None:
            await view.cancel_sent.wait()
        outcome: Json = {"outcome": "selected", "optionId": answer} if answer else {"outcome": "cancelled"}
        await self.send_line({"jsonrpc": "2.0", "id": request["id"], "result": {"outcome": outcome}})


class V2Harness(AgentView[V2Agent]):
    """One test's view of a demo agent spoken to in ACP v2: its own requests and its own sessions.

    Like the v1 ``AgentHarness``, it may share its agent with the module's other tests and then records
    only answers to its own requests and messages naming its own sessions (``lines`` stays the raw,
    shared stream: read it from a mark). ``permission_answer`` is the optionId to select; None means "wait
    for our own ``session/cancel``, then answer ``cancelled``", as a v2 client must.
    """

    def __init__(self, workspace: Path, shared: SharedAgents[V2Agent] | None = None) -> None:
        self.workspace = workspace
        self.received: list[Json] = []
        self.stderr = bytearray()
        self.permission_answer: str | None = "apply"
        self.cancel_sent = asyncio.Event()
        self._shared = shared
        self._agent: V2Agent | None = None
        self._ids: set[int] = set()
        self._sessions: set[str] = set()

    # -- the agent -------------------------------------------------------------------------------------
    @property
    def lines(self) -> list[Any]:
        return self.agent.lines

    @property
    def _next_id(self) -> int:
        """The id of the request we sent last."""
        return self.agent.last_id

    # -- recording -------------------------------------------------------------------------------------
    def sent(self, request_id: int, params: Json) -> None:
        self._ids.add(request_id)
        if isinstance(params.get("sessionId"), str):
            self._sessions.add(params["sessionId"])

    def answers_us(self, response: Json) -> bool:
        return response.get("id") in self._ids

    # -- wire ------------------------------------------------------------------------------------------
    async def send_line(self, payload: Any) -> None:
        await self.agent.send_line(payload)

    async def request(self, method: str, params: Json, request_id: int | None = None) -> Json:
        """Send a request and return its result; an error answer raises RpcFailure."""
        return await self.agent.request(method, params, request_id)

    async def notify(self, method: str, params: Json) -> None:
        if isinstance(params.get("sessionId"), str):
            self._sessions.add(params["sessionId"])
        await self.send_line({"jsonrpc": "2.0", "method": method, "params": params})

    # -- ACP -------------------------------------------------------------------------------------------
    async def initialize(self, capabilities: Any = V2_SUGGESTIONS, version: int = 2) -> Json:
        """Initialize; a shared agent initialised with the same params answers (with what it answered)."""
        params: Json = {"protocolVersion": version, "info": CLIENT_INFO, "capabilities": capabilities}
        if self._shared is not None:
            agent = await self._shared.initialized(params)
            self.attach(agent)
            assert agent.initialize_result is not None
            return copy.deepcopy(agent.initialize_result)
        return await self.request("initialize", params, request_id=0)

    async def new_session(self, cwd: Path | None = None) -> str:
        """Create a session and wait for its ``available_commands_update``, which follows the response."""
        result = await self.request("session/new", {"cwd": str(cwd or self.workspace)})
        session_id: str = result["sessionId"]
        await self.wait_for(lambda: self.updates(session_id, "available_commands_update"))
        return session_id

    async def start(self, capabilities: Any = V2_SUGGESTIONS) -> str:
        await self.initialize(capabilities)
        return await self.new_session()

    async def prompt(self, session_id: str, *blocks: Json | str) -> Json:
        """Send ``session/prompt`` (strings become text blocks); returns its answer, ``{}`` when accepted."""
        prompt = [{"type": "text", "text": b} if isinstance(b, str) else b for b in blocks]
        return await self.request("session/prompt", {"sessionId": session_id, "prompt": prompt})

    async def turn(self, session_id: str, *blocks: Json | str) -> list[Json]:
        """Prompt and wait for the turn's idle; the session's updates from its user_message to that idle."""
        since = self.mark()
        assert await self.prompt(session_id, *blocks) == {}
        await self.wait_idle(session_id, since)
        return self.updates(session_id, since=since)

    async def wait_idle(self, session_id: str, since: int = 0, count: int = 1) -> list[Json]:
        """Wait for ``count`` idle state updates after ``since``; returns them."""
        return await self.wait_for(
            lambda: (idles := self.states(session_id, since, "idle"))[count - 1 :] and idles
        )

    def states(self, session_id: str, since: int = 0, state: str | None = None) -> list[Json]:
        return [
            u for u in self.updates(session_id, "state_update", since) if state is None or u["state"] == state
        ]

    def kinds(self, session_id: str, since: int = 0) -> list[str]:
        """Update kinds after ``since``; a state update shows as ``state:<state>``."""
        return [
            f"state:{u['state']}" if u["sessionUpdate"] == "state_update" else u["sessionUpdate"]
            for u in self.updates(session_id, since=since)
        ]

    async def cancel(self, session_id: str) -> None:
        await self.notify("session/cancel", {"sessionId": session_id})
        self.cancel_sent.set()

    def index_of_response(self, request_id: int) -> int:
        return next(i for i, m in enumerate(self.received) if m.get("id") == request_id and "method" not in m)


async def _drain(stream: asyncio.StreamReader | None, into: bytearray) -> None:
    if stream is None:
        return
    while chunk := await stream.read(65536):
        into.extend(chunk)


@asynccontextmanager
async def spawned_v2_agent(
    workspace: Path, state_dir: Path, env: dict[str, str] | None = None
) -> AsyncIterator[V2Agent]:
    """Spawn ``python -m webclient.demo_agent`` in ``workspace``; close stdin and reap it afterwards."""
    child_env = {
        "PYTHONPATH": str(REPO_ROOT),
        "WEBCLIENT_DEMO_STATE_DIR": str(state_dir),
        "WEBCLIENT_DEMO_CHUNK_DELAY_MS": "0",
        "WEBCLIENT_DEMO_PREDICTION_DELAY_MS": str(PREDICTION_DELAY_MS),
        **(env or {}),
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "webclient.demo_agent", cwd=workspace, env=child_env,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        limit=16 * 1024 * 1024,
    )  # fmt: skip
    agent = V2Agent(process)
    reading = asyncio.create_task(agent.read_loop())
    draining = asyncio.create_task(_drain(process.stderr, agent.stderr))
    try:
        yield agent
    finally:
        assert process.stdin is not None
        process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), EXIT_TIMEOUT)
        except TimeoutError:
            process.kill()
            await process.wait()
        for task in (reading, draining, *agent._tasks):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


@asynccontextmanager
async def running_v2_agent(
    workspace: Path, state_dir: Path, env: dict[str, str] | None = None
) -> AsyncIterator[V2Harness]:
    """A demo agent of the test's own, not yet initialised: for restarts and stopping it mid-turn."""
    async with spawned_v2_agent(workspace, state_dir, env) as agent:
        harness = V2Harness(workspace)
        harness.attach(agent)
        yield harness
