"""A v1 agent built the way the ACP Python SDK's own examples build one (`acp.run_agent`): it answers
`initialize` with the SDK's PROTOCOL_VERSION whatever it is offered, and echoes each prompt.

`--echo-version` answers the version it is offered instead, as the SDK's echo example does (so a v2
offer gets `{"protocolVersion": 2}` with v1's fields and no `info`); `--with-info` adds a v2 `info` to
that answer, so that only its v1-shaped answers to later requests give it away.

With `WIRE_RECORD` set, the raw `initialize` params it received are appended to that file: the SDK's
models drop fields they do not know, so this is the only way to see what the client advertised."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from acp import (
    PROTOCOL_VERSION,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    run_agent,
    text_block,
)
from acp.helpers import update_agent_message
from acp.interfaces import Agent, Client
from acp.schema import ClientCapabilities, Implementation


class WithInfo(InitializeResponse):
    info: dict[str, str] | None = None


class EchoAgent(Agent):
    def __init__(self) -> None:
        self._client: Client | None = None

    def on_connect(self, conn: Client) -> None:
        self._client = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        if "--echo-version" not in sys.argv:
            return InitializeResponse(protocol_version=PROTOCOL_VERSION)
        if "--with-info" in sys.argv:  # v2's `info` too: the SDK's own model would drop it
            return WithInfo(protocol_version=protocol_version, info={"name": "echo", "version": "1"})
        return InitializeResponse(protocol_version=protocol_version)

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        return NewSessionResponse(session_id="sdk-1")

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        said = "".join(getattr(block, "text", "") for block in prompt)
        assert self._client is not None
        await self._client.session_update(session_id, update_agent_message(text_block(f"You said: {said}")))
        return PromptResponse(stop_reason="end_turn")


class Recording:
    """Stdin as the SDK reads it, writing each `initialize`'s params to WIRE_RECORD on the way."""

    def __init__(self, path: str) -> None:
        self._path = path

    def record(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            return
        if isinstance(message, dict) and message.get("method") == "initialize":
            with open(self._path, "a") as out:
                out.write(json.dumps(message.get("params")) + "\n")


async def main() -> None:
    record = os.environ.get("WIRE_RECORD")
    if not record:
        # The SDK's Agent protocol lists every method as required; the connection answers those missing.
        await run_agent(EchoAgent())  # type: ignore[abstract]
        return
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    piped = asyncio.StreamReader()
    recording = Recording(record)

    async def pump() -> None:
        while line := await reader.readline():
            recording.record(line)
            piped.feed_data(line)
        piped.feed_eof()

    task = asyncio.create_task(pump())
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, sys.stdout)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    await run_agent(EchoAgent(), writer, piped)  # type: ignore[abstract]  # as above
    task.cancel()


asyncio.run(main())
