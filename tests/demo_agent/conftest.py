"""Drive the real demo agent as a subprocess over stdio, the way a client does.

The harness sends its own raw ``initialize`` params (the SDK's models would drop ``promptSuggestions``) and
records every incoming message with a Connection observer, which the SDK calls synchronously in wire order:
so tests can assert the order of updates and responses exactly as a client sees it.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from acp.connection import Connection, StreamDirection, StreamEvent
from acp.exceptions import RequestError
from acp.stdio import spawn_stdio_connection

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
    async def wait_for(self, condition: Callable[[], Any], timeout: float = WAIT_TIMEOUT) -> Any:
        """Poll until ``condition()`` is truthy and return its value; fail with the agent's stderr."""
        deadline = time.monotonic() + timeout
        while not (value := condition()):
            if time.monotonic() > deadline:
                pytest.fail(f"condition not met within {timeout} s; agent stderr:\n{self.stderr.decode()}")
            await asyncio.sleep(0.01)
        return value

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


@dataclass
class AgentHarness(WireLog):
    """One running demo agent and everything it has sent, in wire order."""

    conn: Connection
    process: asyncio.subprocess.Process
    workspace: Path
    received: list[Json] = field(default_factory=list)
    stderr: bytearray = field(default_factory=bytearray)
    client: ClientResponder | None = None

    # -- requests --------------------------------------------------------------------------------------
    async def initialize(self, client_capabilities: Any = None, *, omit_capabilities: bool = False) -> Json:
        params: Json = {"protocolVersion": 1, "clientInfo": {"name": "tests", "version": "0"}}
        if not omit_capabilities:
            params["clientCapabilities"] = client_capabilities
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
        params = {"sessionId": session_id, "cwd": str(cwd or self.workspace), "mcpServers": []}
        result: Json = await self.conn.send_request("session/load", params)
        return result

    async def prompt(self, session_id: str, *blocks: Json | str) -> Json:
        """Send ``session/prompt``; plain strings become text blocks. Returns the response result."""
        prompt = [{"type": "text", "text": b} if isinstance(b, str) else b for b in blocks]
        result: Json = await self.conn.send_request(
            "session/prompt", {"sessionId": session_id, "prompt": prompt}
        )
        return result

    async def cancel(self, session_id: str) -> None:
        await self.conn.send_notification("session/cancel", {"sessionId": session_id})
        if self.client is not None:
            self.client.cancel_sent.set()


async def _drain(stream: asyncio.StreamReader | None, into: bytearray) -> None:
    # The SDK pipes the child's stderr but never reads it; a chatty agent would block on a full pipe.
    if stream is None:
        return
    while chunk := await stream.read(65536):
        into.extend(chunk)


@asynccontextmanager
async def running_agent(
    workspace: Path, state_dir: Path, env: dict[str, str] | None = None
) -> AsyncIterator[AgentHarness]:
    """Spawn ``python -m webclient.demo_agent`` in ``workspace`` and yield its harness."""
    child_env = {
        "PYTHONPATH": str(REPO_ROOT),
        "WEBCLIENT_DEMO_STATE_DIR": str(state_dir),
        "WEBCLIENT_DEMO_CHUNK_DELAY_MS": "0",
        "WEBCLIENT_DEMO_PREDICTION_DELAY_MS": str(PREDICTION_DELAY_MS),
        **(env or {}),
    }
    received: list[Json] = []

    def observe(event: StreamEvent) -> None:
        if event.direction is StreamDirection.INCOMING:
            received.append(event.message)

    command = (sys.executable, "-m", "webclient.demo_agent")
    client = ClientResponder(workspace)
    async with spawn_stdio_connection(
        client, *command, cwd=workspace, env=child_env, observers=[observe]
    ) as (conn, process):
        harness = AgentHarness(conn, process, workspace, received, client=client)
        drain = asyncio.create_task(_drain(process.stderr, harness.stderr))
        try:
            yield harness
        finally:
            drain.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await drain


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A small project: a README, a Python module, a subdirectory, plus things listings must skip."""
    root = tmp_path / "workspace"
    (root / "src").mkdir(parents=True)
    (root / "README.md").write_text("# Demo project\n\nSome words.\n\n## Usage\n\nRun it.\n")
    (root / "src" / "app.py").write_text(
        '"""The app."""\n\n\nclass Greeter:\n    """Says hello."""\n\n\ndef main(argv, *, loud=False):\n'
        "    return 0\n"
    )
    (root / "notes.txt").write_text("first line\nsecond line\n")
    for skipped in (".git", ".venv", "__pycache__", "node_modules"):
        (root / skipped).mkdir()
    (root / ".env").write_text("SECRET=1\n")
    return root


@pytest.fixture
def state_dir(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture
async def agent(workspace: Path, state_dir: Path) -> AsyncIterator[AgentHarness]:
    """A running agent in ``workspace``, not yet initialised."""
    async with running_agent(workspace, state_dir) as harness:
        yield harness


@pytest.fixture
async def agent_v2(workspace: Path, state_dir: Path) -> AsyncIterator[Any]:
    """A running agent in ``workspace`` spoken to in ACP v2, not yet initialised (a ``V2Harness``)."""
    from .v2_client import running_v2_agent  # v2_client imports this module

    async with running_v2_agent(workspace, state_dir) as harness:
        yield harness
