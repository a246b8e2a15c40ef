"""An agent on another machine, reached over ACP's HTTP transport: `ws://`/`wss://` for the WebSocket
profile, `http://`/`https://` for Streamable HTTP. An `AgentEndpoint`, like a local process.

TLS certificates are verified (the system's trust store); headers (credentials) go with every request.
One endpoint is one ACP connection: a reconnect is a new endpoint, as a restart is a new process.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Mapping
from urllib.parse import urlsplit

import httpx
from websockets.asyncio.client import ClientConnection

from webclient.acp.endpoint import GarbageCallback, Intercept, MessageChannel, OverflowCallback
from webclient.acp.remote.http_stream import StreamableHttpChannel
from webclient.acp.remote.refusals import shown_url
from webclient.acp.remote.websocket import WebSocketChannel, open_socket
from webclient.aio import cancel_and_wait
from webclient.errors import RemoteLost
from webclient.remote_config import WEBSOCKET_SCHEMES

# An event stream stays open for as long as the connection does: no read timeout. A connection that died
# without a close (a dropped route, a sleeping laptop) is found by TCP keepalive instead: probes after
# 30 s of silence, three 10 s apart (where the system has the options; WebSockets ping on their own).
HTTP_TIMEOUT = httpx.Timeout(30.0, read=None)
KEEPALIVE = [
    (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1),
    *[
        (socket.IPPROTO_TCP, getattr(socket, name), value)
        for name, value in (("TCP_KEEPIDLE", 30), ("TCP_KEEPINTVL", 10), ("TCP_KEEPCNT", 3))
        if hasattr(socket, name)
    ],
]


class RemoteAgent:
    """One ACP connection to a remote agent."""

    remote = True

    def __init__(self, url: str, headers: Mapping[str, str]) -> None:
        self.url = url
        self.headers = dict(headers)
        self.env: Mapping[str, str] = {}  # the agent's environment is the remote machine's business
        self._socket: ClientConnection | None = None
        self._client: httpx.AsyncClient | None = None
        self._channel: WebSocketChannel | StreamableHttpChannel | None = None
        self._watch: asyncio.Task[None] | None = None
        self._ended: asyncio.Event = asyncio.Event()
        self._why = "the connection ended"

    @property
    def description(self) -> str:
        return shown_url(self.url)

    @property
    def websocket(self) -> bool:
        return urlsplit(self.url).scheme in WEBSOCKET_SCHEMES

    async def start(self) -> None:
        """Connect (WebSocket) or get ready to (Streamable HTTP connects with `initialize`)."""
        if self.websocket:
            self._socket = await open_socket(self.url, self.headers)
            return
        self._client = httpx.AsyncClient(
            headers=self.headers,
            timeout=HTTP_TIMEOUT,
            follow_redirects=False,
            transport=httpx.AsyncHTTPTransport(socket_options=KEEPALIVE),
        )

    def channel(
        self,
        on_garbage: GarbageCallback,
        *,
        on_overflow: OverflowCallback | None = None,
        intercept: Intercept | None = None,
    ) -> MessageChannel:
        # A message over the size limit closes a WebSocket (1009) and is the connection's end; no
        # overflow to report separately.
        if self._socket is not None:
            self._channel = WebSocketChannel(self._socket, on_garbage, intercept)
            self._watch = asyncio.create_task(self._watch_socket(self._socket), name="acp-ws-watch")
        else:
            assert self._client is not None, "start() first"
            self._channel = StreamableHttpChannel(
                self._client, self.url, on_garbage, intercept, on_end=self._end
            )
        return self._channel

    async def _watch_socket(self, socket: ClientConnection) -> None:
        await socket.wait_closed()
        code, reason = socket.close_code, socket.close_reason
        detail = f"code {code}" + (f": {reason}" if reason else "") if code is not None else "no close frame"
        self._end(f"the WebSocket closed ({detail})")

    def _end(self, why: str) -> None:
        if not self._ended.is_set():
            self._why = why
            self._ended.set()

    async def wait(self) -> int:
        await self._ended.wait()
        return -1

    def exit_error(self, code: int | None) -> RemoteLost:
        return RemoteLost(f"lost the connection to the remote agent at {self.description}: {self._why}")

    def stderr_tail(self) -> list[str]:
        return []  # its stderr stays on its own machine

    async def stop(self, grace: float = 2.0) -> None:
        """Close the connection (a Streamable HTTP one is DELETEd)."""
        self._end("webclient closed it")
        if self._channel is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(grace):
                    await self._channel.close()
        elif self._socket is not None:
            with contextlib.suppress(Exception):
                await self._socket.close()
        if self._client is not None:
            await self._client.aclose()
        if self._watch is not None:
            await cancel_and_wait(self._watch)
