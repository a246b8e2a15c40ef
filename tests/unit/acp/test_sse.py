"""The event-stream reader of the Streamable HTTP transport: events as the spec cuts them, whatever the
chunks, and a bound on what one event may hold."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

import httpx
import pytest

from webclient.acp.remote.sse import EventTooLarge, events


def response(chunks: Sequence[bytes]) -> httpx.Response:
    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    return httpx.Response(200, content=body())


async def read(chunks: Sequence[bytes], limit: int = 1024) -> list[str]:
    return [data async for data in events(response(chunks), limit)]


async def test_each_event_is_its_data_lines_joined_and_comments_and_other_fields_are_skipped() -> None:
    stream = b':keep-alive\n\ndata: {"a":1}\n\nevent: message\nid: 7\ndata: one\ndata:two\n\n'
    assert await read([stream]) == ['{"a":1}', "one\ntwo"]


async def test_events_cut_anywhere_between_chunks_read_the_same() -> None:
    stream = b'data: {"jsonrpc":"2.0","method":"x"}\r\n\r\ndata: second\r\rdata: third\n\n'
    whole = await read([stream])
    assert whole == ['{"jsonrpc":"2.0","method":"x"}', "second", "third"]
    for cut in range(1, len(stream)):
        assert await read([stream[:cut], stream[cut:]]) == whole, cut
    assert await read([bytes([b]) for b in stream]) == whole


async def test_an_event_without_its_blank_line_is_not_delivered() -> None:
    assert await read([b"data: done\n\ndata: cut off"]) == ["done"]


async def test_an_event_or_a_line_past_the_limit_ends_the_stream() -> None:
    with pytest.raises(EventTooLarge, match="an event"):
        await read([b"data: " + b"x" * 600 + b"\n", b"data: " + b"y" * 600 + b"\n\n"], limit=1000)
    with pytest.raises(EventTooLarge, match="a line"):
        await read([b"data: " + b"z" * 700, b"z" * 700], limit=1000)
