"""ACP over a WebSocket (the WebSocket profile of ACP's HTTP transport, and what `acpremote` serves):
one JSON-RPC message per text frame, both ways. Binary frames are ignored, as the RFD says."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from webclient.acp.endpoint import GarbageCallback, Intercept
from webclient.acp.remote.frames import MAX_MESSAGE_BYTES, FrameChannel, dump, parse_frame
from webclient.acp.remote.refusals import refusal

OPEN_TIMEOUT = 15.0
# Pings find a connection that died without a close (a sleeping laptop, a dropped route).
PING_INTERVAL = 20.0


async def open_socket(url: str, headers: Mapping[str, str]) -> ClientConnection:
    """The upgraded connection; raises `RemoteRefused` or `RemoteUnreachable` saying why not."""
    try:
        return await connect(
            url,
            additional_headers=dict(headers),
            open_timeout=OPEN_TIMEOUT,
            ping_interval=PING_INTERVAL,
            ping_timeout=PING_INTERVAL,
            max_size=MAX_MESSAGE_BYTES,
            compression=None,
        )
    except Exception as exc:
        raise refusal(url, exc) from None


class WebSocketChannel(FrameChannel):
    """A `MessageChannel` over one open WebSocket."""

    def __init__(
        self, socket: ClientConnection, on_garbage: GarbageCallback, intercept: Intercept | None
    ) -> None:
        super().__init__(on_garbage, intercept)
        self._socket = socket
        self._lock = asyncio.Lock()

    async def send(self, message: dict[str, Any]) -> None:
        try:
            async with self._lock:
                await self._socket.send(dump(message))
        except ConnectionClosed as exc:
            raise ConnectionError(f"the remote agent's connection is closed ({exc})") from None

    async def _next(self) -> tuple[Any, str] | None:
        while True:
            try:
                frame = await self._socket.recv()
            except ConnectionClosed:
                return None
            if isinstance(frame, str):
                return parse_frame(frame), frame

    async def close(self) -> None:
        await self._socket.close()
