"""A raw ACP v2 test client for the demo agent: JSON-RPC lines over the subprocess's stdio.

The SDK cannot be the client here (its models are v1 and its reader dies on a batch array), so this
harness writes and reads lines itself. It records every incoming message in wire order (batch entries one
by one, the raw lines as well), answers the agent's permission requests, and waits with generous deadlines.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .conftest import PREDICTION_DELAY_MS, REPO_ROOT, WAIT_TIMEOUT, Json, WireLog

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
class V2Harness(WireLog):
    """One running demo agent spoken to in ACP v2.

    ``permission_answer`` is the optionId to select; None means "wait for our own ``session/cancel``, then
    answer ``cancelled``", as a v2 client must.
    """

    process: asyncio.subprocess.Process
    workspace: Path
    received: list[Json] = field(default_factory=list)
    lines: list[Any] = field(default_factory=list)
    stderr: bytearray = field(default_factory=bytearray)
    permission_answer: str | None = "apply"
    cancel_sent: asyncio.Event = field(default_factory=asyncio.Event)
    _pending: dict[Any, asyncio.Future[Json]] = field(default_factory=dict)
    _next_id: int = 0
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    # -- wire ------------------------------------------------------------------------------------------
    async def send_line(self, payload: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps(payload) + "\n").encode())
        await self.process.stdin.drain()

    def next_id(self) -> int:
        self._next_id += 1
        return self._next_id

    async def request(self, method: str, params: Json, request_id: int | None = None) -> Json:
        """Send a request and return its result; an error answer raises RpcFailure."""
        request_id = self.next_id() if request_id is None else request_id
        future: asyncio.Future[Json] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        await self.send_line({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        answer = await asyncio.wait_for(future, WAIT_TIMEOUT)
        if "error" in answer:
            raise RpcFailure(answer["error"])
        result: Json = answer["result"]
        return result

    async def notify(self, method: str, params: Json) -> None:
        await self.send_line({"jsonrpc": "2.0", "method": method, "params": params})

    async def read_loop(self) -> None:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            payload = json.loads(line)
            self.lines.append(payload)
            for message in payload if isinstance(payload, list) else [payload]:
                self.received.append(message)
                self._take(message)

    def _take(self, message: Json) -> None:
        if "method" in message and "id" in message:
            task = asyncio.create_task(self._answer(message))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif "method" not in message and (future := self._pending.pop(message.get("id"), None)):
            future.set_result(message)

    async def _answer(self, request: Json) -> None:
        if request["method"] != "session/request_permission":
            error = {"code": -32601, "message": "Method not found"}
            await self.send_line({"jsonrpc": "2.0", "id": request["id"], "error": error})
            return
        if self.permission_answer is None:
            await self.cancel_sent.wait()
            outcome: Json = {"outcome": "cancelled"}
        else:
            outcome = {"outcome": "selected", "optionId": self.permission_answer}
        await self.send_line({"jsonrpc": "2.0", "id": request["id"], "result": {"outcome": outcome}})

    # -- ACP -------------------------------------------------------------------------------------------
    async def initialize(self, capabilities: Any = V2_SUGGESTIONS, version: int = 2) -> Json:
        params: Json = {"protocolVersion": version, "info": CLIENT_INFO, "capabilities": capabilities}
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
async def running_v2_agent(
    workspace: Path, state_dir: Path, env: dict[str, str] | None = None
) -> AsyncIterator[V2Harness]:
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
    harness = V2Harness(process, workspace)
    reading = asyncio.create_task(harness.read_loop())
    draining = asyncio.create_task(_drain(process.stderr, harness.stderr))
    try:
        yield harness
    finally:
        assert process.stdin is not None
        process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), EXIT_TIMEOUT)
        except TimeoutError:
            process.kill()
            await process.wait()
        for task in (reading, draining, *harness._tasks):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
