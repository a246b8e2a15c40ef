"""Newline-delimited JSON-RPC over an agent's stdio, for the SDK's message-level `Connection`.

We bring our own transport instead of the SDK's byte-stream one for two reasons: a line that is not a
JSON object must become a visible notice, not a log line nobody reads (and a JSON array, a batch, would
otherwise kill the SDK's receive loop); and the stream's hot path, `session/update` notifications, must not
pay for the SDK's per-message work (a deep copy for its observers, a task and a tracing span per
notification: two thirds of the server's time per chunk, measured with cProfile). An `intercept` callback
sees every message first, in wire order, and keeps the ones it handles from the SDK.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from webclient.acp import heap, wire_log
from webclient.acp.endpoint import GarbageCallback, Intercept, InterceptingChannel, OverflowCallback
from webclient.acp.wire_values import parse_line, usable_id

# The longest line we take in (a message with a large file or image is legal and long). A longer one is
# not kept whole: holding an endless line would let an agent grow the server's memory without limit.
MAX_LINE_BYTES = 16 * 1024 * 1024
# A line at least this long is parsed on a worker thread: parsing 5 MB held every other tab for some
# 20 ms. Shorter lines (nearly all of them) are parsed here, where that costs less than the hand-off.
# Lines are still read and parsed one after another, so wire order is kept.
OFF_LOOP_BYTES = 256 * 1024


class NdjsonTransport(InterceptingChannel):
    """Implements the SDK's `acp._transport.Transport` protocol over a subprocess's pipes."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        on_garbage: GarbageCallback,
        *,
        on_overflow: OverflowCallback | None = None,
        max_line: int = MAX_LINE_BYTES,
        intercept: Intercept | None = None,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._on_garbage = on_garbage
        self._on_overflow = on_overflow
        self._max_line = max_line
        self._overflowed = False
        self._intercept = intercept
        self._write_lock = asyncio.Lock()

    async def send(self, message: dict[str, Any]) -> None:
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
        async with self._write_lock:
            self._writer.write(line.encode("utf-8"))
            await self._writer.drain()

    async def receive(self) -> dict[str, Any] | None:
        """The next JSON object for the SDK, or None at end of stream. Skips and reports garbage (a batch
        array too: ACP v1 has none, and the SDK could not read one); leaves out what `intercept` handled.

        A line longer than ``max_line`` ends the stream: ``on_overflow`` is told how many bytes were read
        without a newline, and nothing more is read (the caller stops the agent).
        """
        return await super().receive()

    async def receive_any(self, *, batches: bool = True) -> dict[str, Any] | list[Any] | None:
        """The next JSON object, or (with `batches`) JSON array; None at end of stream. Anything else on a
        line is reported as garbage and skipped."""
        while True:
            line = await self._read_line()
            if line is None:
                return None
            if len(line) >= OFF_LOOP_BYTES:
                text, message = await asyncio.to_thread(_parse_big, line)
                wire_log.measured(message, len(line))  # the protocol log need not walk it to size it
            else:
                text, message = _parse(line)
            if not text:
                continue
            if (isinstance(message, dict) and usable_id(message)) or (batches and isinstance(message, list)):
                return message
            self._on_garbage(text.decode("utf-8", errors="replace"))

    async def close(self) -> None:
        if self._writer.is_closing():
            return
        with contextlib.suppress(OSError, RuntimeError, AttributeError):
            self._writer.write_eof()
        self._writer.close()

    async def _read_line(self) -> bytes | None:
        if self._overflowed:
            return None
        chunks: list[bytes] = []
        size = 0
        while True:
            try:
                chunk = await self._reader.readuntil(b"\n")
            except asyncio.LimitOverrunError as exc:
                # Long lines (large file contents, images) are legal: keep reading, up to the cap.
                part = await self._reader.readexactly(min(exc.consumed, self._max_line - size + 1))
                size += len(part)
                if size > self._max_line:
                    self._overflow(size)
                    return None
                chunks.append(part)
                continue
            except asyncio.IncompleteReadError as exc:
                if size + len(exc.partial) > self._max_line:
                    self._overflow(size + len(exc.partial))
                    return None
                chunks.append(exc.partial)
                data = b"".join(chunks)
                return data or None
            except (ConnectionError, OSError):
                return None
            if size + len(chunk) > self._max_line + 1:  # the cap, plus its newline
                self._overflow(size + len(chunk))
                return None
            chunks.append(chunk)
            return b"".join(chunks)

    def _overflow(self, size: int) -> None:
        self._overflowed = True
        if self._on_overflow is not None:
            self._on_overflow(size)


def _parse_big(line: bytes) -> tuple[bytes, Any]:
    """`_parse`, on a worker thread, after giving back the memory that earlier big messages left free."""
    heap.give_back_free_memory()
    return _parse(line)


def _parse(line: bytes) -> tuple[bytes, Any]:
    """The line without its surrounding whitespace, and its value (`parse_line`; None when blank)."""
    text = line.strip()
    return text, parse_line(text) if text else None
