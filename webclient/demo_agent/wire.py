"""Connection plumbing: the first line picks the protocol version, then v1 or v2 serves the connection.

The first message is ``initialize``. A ``protocolVersion`` of 2 or more gets the v2 agent over our own
JSON-RPC peer (``jsonrpc.py``, ``agent_v2.py``); anything else goes, unchanged, to the v1 path below, which
reads that same first line again from a replaying reader.

v1 is stdio JSON-RPC (ndjson) through the SDK's ``Connection``, built by hand. Why not
``AgentSideConnection``: its ``session_update`` accepts only the SDK's typed updates (the closed
union has no ``prompt_suggestions_update``), and its validated ``initialize`` params have already lost
``clientCapabilities.session.promptSuggestions``. So the agent gets the SDK's router for every request,
but the raw initialize params and a raw ``session/update`` sender.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import logging
import os
import sys
from collections.abc import Callable
from typing import Any, cast

from acp.agent.router import build_agent_router
from acp.connection import Connection, JsonValue, MethodHandler
from acp.interfaces import Agent
from acp.meta import AGENT_METHODS, CLIENT_METHODS
from acp.stdio import stdio_streams

from .agent import DemoAgent
from .agent_v2 import DemoAgentV2
from .blocks import JsonDict
from .config import DemoSettings
from .jsonrpc import JsonRpcPeer
from .store import SessionStore

__all__ = ["ConnectionSink", "RawInitializeRecorder", "main", "serve", "wants_v2"]

log = logging.getLogger(__name__)

LOG_LEVEL_ENV = "WEBCLIENT_DEMO_LOG_LEVEL"
# v2 prompts carry images as base64 on one line; the v1 path keeps the SDK's default line limit.
V2_LINE_LIMIT = 64 * 1024 * 1024
PUMP_READ_SIZE = 65536


class RawInitializeRecorder:
    """A JSON-RPC method handler that shows the raw ``initialize`` params to ``record`` first.

    Chosen over a Connection observer because it sees exactly the params of the request being handled,
    immediately before the SDK router validates them (and drops unknown fields) and calls
    ``Agent.initialize``; an observer would also deep-copy every other message of the session.
    """

    def __init__(self, inner: MethodHandler, record: Callable[[Any], None]) -> None:
        self._inner = inner
        self._record = record

    async def __call__(
        self, method: str, params: JsonValue | None, is_notification: bool
    ) -> JsonValue | None:
        if method == AGENT_METHODS["initialize"] and not is_notification:
            self._record(copy.deepcopy(params))
        return await self._inner(method, params, is_notification)


class ConnectionSink:
    """Sends ``session/update`` as a raw notification and requests to the client; bound once it exists."""

    def __init__(self) -> None:
        self._conn: Connection | None = None

    def bind(self, conn: Connection) -> None:
        self._conn = conn

    async def session_update(self, session_id: str, update: JsonDict) -> None:
        if self._conn is None:
            raise ConnectionError("session/update before the connection was bound")
        params = {"sessionId": session_id, "update": update}
        await self._conn.send_notification(CLIENT_METHODS["session_update"], params)

    async def request(self, method: str, params: JsonDict) -> Any:
        """A request to the client (fs, permission); a JSON-RPC error answer raises RequestError."""
        if self._conn is None:
            raise ConnectionError(f"{method} before the connection was bound")
        return await self._conn.send_request(method, params)


async def serve(settings: DemoSettings) -> None:
    """Serve one client on stdin/stdout until stdin closes, in the version its ``initialize`` asks for."""
    reader, writer = await stdio_streams(limit=V2_LINE_LIMIT)
    try:
        first = await reader.readline()
    except ValueError:
        log.error("the first line is longer than %d bytes; closing", V2_LINE_LIMIT)
        return
    store = SessionStore(settings.state_dir / "sessions")
    if wants_v2(first):
        await _serve_v2(settings, store, reader, writer, first)
        return
    replay = asyncio.StreamReader()  # the SDK's default limit, exactly as before
    replay.feed_data(first)
    pump = asyncio.create_task(_pump(reader, replay), name="demo-agent:stdin")
    try:
        await _serve_v1(settings, store, replay, writer)
    finally:
        pump.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pump


def wants_v2(line: bytes) -> bool:
    """Whether the first line is an ``initialize`` request asking for protocol version 2 or later."""
    try:
        message = json.loads(line)
    except ValueError:
        return False
    params = message.get("params") if isinstance(message, dict) else None
    version = params.get("protocolVersion") if isinstance(params, dict) else None
    return (
        isinstance(message, dict)
        and message.get("method") == AGENT_METHODS["initialize"]
        and "id" in message
        and isinstance(version, int)
        and not isinstance(version, bool)
        and version >= 2
    )


async def _pump(source: asyncio.StreamReader, target: asyncio.StreamReader) -> None:
    """Copy stdin into the v1 reader after the replayed first line, then pass on end of input."""
    try:
        while data := await source.read(PUMP_READ_SIZE):
            target.feed_data(data)
    finally:
        target.feed_eof()


async def _serve_v1(
    settings: DemoSettings, store: SessionStore, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    sink = ConnectionSink()
    agent = DemoAgent(settings, sink, store)
    # The router looks methods up by name; the ones DemoAgent lacks (authenticate, set_mode, ...) answer
    # "method not found", so it need not implement the whole Agent protocol.
    router = build_agent_router(cast(Agent, agent))
    handler = RawInitializeRecorder(router, agent.record_initialize_params)
    # listening=False: main_loop() below is then the only reader and returns when stdin reaches EOF.
    conn = Connection(handler, writer, reader, listening=False)
    sink.bind(conn)
    try:
        await conn.main_loop()
    finally:
        await agent.close()
        await conn.close()
        writer.close()


async def _serve_v2(
    settings: DemoSettings,
    store: SessionStore,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    first: bytes,
) -> None:
    peer = JsonRpcPeer(reader, writer)
    agent = DemoAgentV2(settings, peer.notify, peer.request, store)
    try:
        await peer.run(agent.handle, agent.notice, first)
    finally:
        await agent.close()
        await peer.close()
        writer.close()


def main() -> None:
    """``python -m webclient.demo_agent``: logs go to stderr, stdout carries only JSON-RPC."""
    level = os.environ.get(LOG_LEVEL_ENV, "WARNING").upper()
    logging.basicConfig(
        stream=sys.stderr, level=level, format="demo-agent %(levelname)s %(name)s: %(message)s"
    )
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(DemoSettings.from_env()))
