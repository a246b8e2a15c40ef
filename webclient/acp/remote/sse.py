"""Server-sent events read from an httpx response, with a bound on what one event may hold.

The event-stream format (lines ending in LF, CRLF or CR; `data:` lines joined by newlines; a blank line
ends an event; `:` starts a comment) as the WHATWG spec defines it. Only `data` matters to ACP: each
event is one JSON-RPC message. A remote agent is not trusted with our memory, so an event (or a line)
past `limit` bytes ends the stream with `EventTooLarge` instead of growing a buffer without end.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator

import httpx


class EventTooLarge(Exception):
    """An event or a line of the stream passed the size limit."""


async def events(response: httpx.Response, limit: int) -> AsyncIterator[str]:
    """The data of each event of `response`'s body, in order."""
    data: list[bytes] = []
    size = 0
    async with contextlib.aclosing(_lines(response, limit)) as lines:
        async for line in lines:
            if not line:  # a blank line ends the event
                if data:
                    yield b"\n".join(data).decode("utf-8", errors="replace")
                data, size = [], 0
                continue
            field, _, value = line.partition(b":")
            if field == b"data":
                value = value[1:] if value.startswith(b" ") else value
                size += len(value) + 1
                if size > limit:
                    raise EventTooLarge(f"an event of the event stream passed {limit:,} bytes")
                data.append(value)


async def _lines(response: httpx.Response, limit: int) -> AsyncGenerator[bytes]:
    """Each whole line of `response`'s body, without its end; EventTooLarge for a line past `limit`."""
    line: list[bytes] = []  # the pieces of a line whose end has not arrived yet
    line_size = 0
    held_cr = False  # a chunk ended in CR: its LF may start the next one
    async for chunk in response.aiter_bytes():
        if held_cr:
            chunk = b"\r" + chunk
        held_cr = chunk.endswith(b"\r")
        if held_cr:
            chunk = chunk[:-1]
        parts = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        line.append(parts[0])
        line_size += len(parts[0])
        if line_size > limit:
            raise EventTooLarge(f"a line of the event stream passed {limit:,} bytes")
        if len(parts) == 1:
            continue
        complete = [b"".join(line), *parts[1:-1]]
        line, line_size = [parts[-1]], len(parts[-1])
        for each in complete:
            yield each
