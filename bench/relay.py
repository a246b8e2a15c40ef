"""The bare relay baseline: an agent's stdout piped line by line to a WebSocket, and a page that appends
one text node per `agent_message_chunk` (and per piece of command output streamed in a tool call's
`_meta`). No state, no HTML rendering, no coalescing: what a browser client costs at the least.
`python bench/relay.py AGENT_COMMAND...` prints its URL.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from http import HTTPStatus
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

PAGE = b"""<!doctype html><meta charset="utf-8"><title>relay</title><body><div id="out"></div><script>
const out = document.getElementById("out");
const socket = new WebSocket("ws://" + location.host + "/ws");
window.relaySend = (text) => socket.send(text);
socket.onopen = () => { window.relayOpen = true; };
socket.onmessage = (event) => {
  const message = JSON.parse(event.data);
  const update = message.method === "session/update" ? message.params.update : null;
  if (update && update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
    out.appendChild(document.createTextNode(update.content.text));
  }
  const delta = update && update._meta && update._meta.terminal_output_delta;
  if (delta && typeof delta.data === "string") out.appendChild(document.createTextNode(delta.data));
};
</script>"""


class Relay:
    def __init__(self, agent: asyncio.subprocess.Process) -> None:
        self.agent = agent
        self.ids = iter(range(1, 1 << 30))
        self.socket: ServerConnection | None = None  # the latest tab: it gets the agent's output

    async def request(self, method: str, params: dict[str, Any]) -> None:
        line = {"jsonrpc": "2.0", "id": next(self.ids), "method": method, "params": params}
        assert self.agent.stdin is not None
        self.agent.stdin.write(json.dumps(line).encode() + b"\n")
        await self.agent.stdin.drain()

    async def handle(self, socket: ServerConnection) -> None:
        self.socket = socket
        async for text in socket:
            block = {"type": "text", "text": str(text)}
            await self.request("session/prompt", {"sessionId": "stream-1", "prompt": [block]})

    async def pump(self) -> None:
        """The one reader of the agent's stdout: every line, as it is, to the latest tab."""
        assert self.agent.stdout is not None
        while line := await self.agent.stdout.readline():
            if self.socket is not None:
                with contextlib.suppress(ConnectionClosed):
                    await self.socket.send(line.decode())


def page(_: ServerConnection, request: Request) -> Response | None:
    if request.path == "/ws":
        return None
    headers = Headers({"content-type": "text/html; charset=utf-8", "content-length": str(len(PAGE))})
    return Response(HTTPStatus.OK, "OK", headers, PAGE)


async def main() -> None:
    agent = await asyncio.create_subprocess_exec(
        *sys.argv[1:], stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=1 << 26
    )
    relay = Relay(agent)
    await relay.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    await relay.request("session/new", {"cwd": ".", "mcpServers": []})
    assert agent.stdout is not None
    await agent.stdout.readline()
    await agent.stdout.readline()
    pump = asyncio.create_task(relay.pump())
    async with serve(relay.handle, "127.0.0.1", 0, process_request=page, max_size=None) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(f"relay at http://127.0.0.1:{port}/", flush=True)
        try:
            await server.serve_forever()
        finally:
            pump.cancel()


if __name__ == "__main__":
    asyncio.run(main())
