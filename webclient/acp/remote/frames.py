"""What both remote transports share: each message arrives whole (a WebSocket text frame, an SSE event),
is parsed once, and reaches the connection as a line of an agent's stdout would.

A frame that is not a JSON object (or, where the caller takes them, a batch array) is reported as
garbage and skipped, as on stdio; `intercept` sees every object first, in arrival order.
"""

from __future__ import annotations

import json
from typing import Any

from webclient.acp.endpoint import GarbageCallback, Intercept, InterceptingChannel
from webclient.acp.wire_values import parse_line, usable_id

# The largest message a remote agent may send (as on stdio: a file or an image is legal and long).
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
UNREADABLE = object()  # a frame that is not JSON


def parse_frame(text: str) -> Any:
    """The frame's JSON value, made safe as a stdio line's is (`wire_values.parse_line`: valid text, a
    bounded depth, usable numbers), or `UNREADABLE`."""
    if not text.strip():
        return UNREADABLE
    value = parse_line(text.encode("utf-8", "surrogatepass"))
    return UNREADABLE if value is None and text.strip() != "null" else value


def dump(message: dict[str, Any] | list[Any]) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


class FrameChannel(InterceptingChannel):
    """The receiving half of a `MessageChannel` over whole frames; `_next` is the transport's."""

    def __init__(self, on_garbage: GarbageCallback, intercept: Intercept | None) -> None:
        self._on_garbage = on_garbage
        self._intercept = intercept

    async def _next(self) -> tuple[Any, str] | None:
        """The next frame as (its parsed value, its text); None once the stream has ended."""
        raise NotImplementedError

    async def receive_any(self, *, batches: bool = True) -> dict[str, Any] | list[Any] | None:
        while True:
            frame = await self._next()
            if frame is None:
                return None
            value, text = frame
            if (isinstance(value, dict) and usable_id(value)) or (batches and isinstance(value, list)):
                return value
            if text.strip():
                self._on_garbage(text)
