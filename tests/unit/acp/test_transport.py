"""NdjsonTransport: one JSON object per line in, garbage reported and skipped, None at end of stream."""

from __future__ import annotations

import asyncio
import inspect
import json
from typing import Any

import pytest

from tests.support.streams import FakeWriter
from webclient.acp import wire_log
from webclient.acp.transport import OFF_LOOP_BYTES, NdjsonTransport
from webclient.acp.v1.connection import _Announcing


def transport(data: bytes = b"", *, eof: bool = True) -> tuple[NdjsonTransport, list[str], FakeWriter]:
    reader = asyncio.StreamReader()
    if data:
        reader.feed_data(data)
    if eof:
        reader.feed_eof()
    garbage: list[str] = []
    writer = FakeWriter()
    return NdjsonTransport(reader, writer, garbage.append), garbage, writer  # type: ignore[arg-type]


async def receive_all(t: NdjsonTransport) -> list[dict[str, Any]]:
    messages = []
    while (message := await t.receive()) is not None:
        messages.append(message)
    return messages


def line(message: Any) -> bytes:
    return json.dumps(message).encode() + b"\n"


async def test_receive_returns_only_json_objects_in_order_and_reports_each_bad_line() -> None:
    big = {"jsonrpc": "2.0", "method": "session/update", "params": {"blob": "A" * (1024 * 1024 + 17)}}
    data = b"".join(
        [
            line({"jsonrpc": "2.0", "id": 1, "result": {}}),
            b"Traceback (most recent call last):\n",
            line([{"jsonrpc": "2.0", "id": 2}]),
            line(42),
            b"\n",
            line(big),
            b"{not json\n",
            line({"jsonrpc": "2.0", "method": "x"}),
        ]
    )
    t, garbage, _ = transport(data)
    messages = await receive_all(t)
    assert messages == [{"jsonrpc": "2.0", "id": 1, "result": {}}, big, {"jsonrpc": "2.0", "method": "x"}]
    assert garbage == [
        "Traceback (most recent call last):",
        '[{"jsonrpc": "2.0", "id": 2}]',
        "42",
        "{not json",
    ]


async def test_receive_returns_none_at_end_of_stream_and_keeps_doing_so() -> None:
    t, garbage, _ = transport(b"")
    assert await t.receive() is None
    assert await t.receive() is None
    assert garbage == []


async def test_blank_and_whitespace_lines_are_skipped_silently() -> None:
    t, garbage, _ = transport(b"\n   \n\t\r\n" + line({"a": 1}))
    assert await receive_all(t) == [{"a": 1}]
    assert garbage == []


async def test_crlf_line_endings_are_accepted() -> None:
    t, garbage, _ = transport(b'{"a": 1}\r\n{"b": 2}\r\n')
    assert await receive_all(t) == [{"a": 1}, {"b": 2}]
    assert garbage == []


async def test_a_last_line_without_newline_is_still_delivered() -> None:
    t, garbage, _ = transport(line({"a": 1}) + b'{"b": 2}')
    assert await receive_all(t) == [{"a": 1}, {"b": 2}]
    assert garbage == []


async def test_a_truncated_last_line_is_reported_as_garbage() -> None:
    t, garbage, _ = transport(b'{"a": ')
    assert await t.receive() is None
    assert garbage == ['{"a":']


async def test_json_scalars_and_null_are_garbage() -> None:
    t, garbage, _ = transport(b'"text"\nnull\ntrue\n3.5\n')
    assert await t.receive() is None
    assert garbage == ['"text"', "null", "true", "3.5"]


async def test_invalid_utf8_is_garbage_and_reported_readably() -> None:
    t, garbage, _ = transport(b'{"a": "\xff\xfe"}\n' + line({"ok": True}))
    assert await receive_all(t) == [{"ok": True}]
    assert garbage == ['{"a": "\ufffd\ufffd"}']


async def test_a_deeply_nested_line_is_garbage_not_a_crash() -> None:
    t, garbage, _ = transport(b"[" * 200_000 + b"\n" + line({"after": 1}))
    assert await receive_all(t) == [{"after": 1}]
    assert len(garbage) == 1


async def test_a_long_line_that_arrives_in_pieces_is_reassembled() -> None:
    message = {"jsonrpc": "2.0", "method": "m", "params": {"text": "é" * 700_000}}
    data = line(message)
    t, garbage, _ = transport(eof=False)
    reader: asyncio.StreamReader = t._reader
    pending = asyncio.ensure_future(t.receive())
    for start in range(0, len(data), 50_000):
        reader.feed_data(data[start : start + 50_000])
        await asyncio.sleep(0)
    reader.feed_eof()
    assert await asyncio.wait_for(pending, 5) == message
    assert garbage == []


async def test_a_long_garbage_line_is_reported_whole() -> None:
    junk = b"x" * (2 * 1024 * 1024)
    t, garbage, _ = transport(junk + b"\n" + line({"a": 1}))
    assert await receive_all(t) == [{"a": 1}]
    assert [len(g) for g in garbage] == [len(junk)]


async def test_send_writes_one_compact_utf8_line_and_drains() -> None:
    t, _, writer = transport()
    await t.send({"jsonrpc": "2.0", "method": "session/prompt", "params": {"text": "héllo\nworld"}})
    assert bytes(writer.data) == (
        '{"jsonrpc":"2.0","method":"session/prompt","params":{"text":"héllo\\nworld"}}\n'.encode()
    )
    assert writer.drains == 1


async def test_concurrent_sends_do_not_interleave() -> None:
    t, _, writer = transport()
    await asyncio.gather(*(t.send({"n": n, "pad": "x" * 1000}) for n in range(20)))
    lines = bytes(writer.data).splitlines()
    assert sorted(json.loads(raw)["n"] for raw in lines) == list(range(20))


async def test_close_sends_eof_and_closes_once() -> None:
    t, _, writer = transport()
    await t.close()
    assert writer.eof and writer.closed
    writer.eof = False
    await t.close()
    assert writer.eof is False


def capped(data: bytes, max_line: int) -> tuple[NdjsonTransport, list[int]]:
    reader = asyncio.StreamReader(limit=64)  # small, so long lines take the chunked path
    reader.feed_data(data)
    reader.feed_eof()
    overflows: list[int] = []
    t = NdjsonTransport(
        reader,
        FakeWriter(),  # type: ignore[arg-type]
        lambda _: None,
        on_overflow=overflows.append,
        max_line=max_line,
    )
    return t, overflows


async def test_a_line_at_the_cap_is_delivered() -> None:
    message = {"pad": "x" * 990}
    data = line(message)
    t, overflows = capped(data + line({"next": 1}), max_line=len(data) - 1)
    assert await receive_all(t) == [message, {"next": 1}]
    assert overflows == []


async def test_a_line_over_the_cap_ends_the_stream_and_reports_how_much_was_read() -> None:
    t, overflows = capped(b"x" * 5000 + b"\n" + line({"after": 1}), max_line=1000)
    assert await t.receive() is None
    assert await t.receive() is None  # nothing after it is read: the agent is no longer understood
    assert len(overflows) == 1 and 1000 < overflows[0] <= 1000 + 64 + 1


async def test_an_endless_last_line_over_the_cap_ends_the_stream_too() -> None:
    t, overflows = capped(b"y" * 3000, max_line=1000)
    assert await t.receive() is None
    assert len(overflows) == 1


async def test_intercepted_messages_never_reach_the_sdk_and_everything_keeps_wire_order() -> None:
    reader = asyncio.StreamReader()
    for n in range(4):
        reader.feed_data(line({"jsonrpc": "2.0", "method": "session/update" if n % 2 else "x", "params": n}))
    reader.feed_eof()
    seen: list[int] = []

    def intercept(message: dict[str, Any]) -> bool:
        seen.append(message["params"])
        return bool(message["method"] == "session/update")

    t = NdjsonTransport(reader, FakeWriter(), [].append, intercept=intercept)  # type: ignore[arg-type]
    assert [m["params"] for m in await receive_all(t)] == [0, 2]
    assert seen == [0, 1, 2, 3]


async def test_the_protocol_log_sizes_a_long_line_by_its_length_without_walking_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 20,000 suggestions are 100,000 values: walking them to size the log's entry held every tab 100 ms.
    entries = [{"prompt": [{"type": "text", "text": "s" * 600}]} for _ in range(2_000)]
    big = {"jsonrpc": "2.0", "method": "session/update", "params": {"update": {"suggestions": entries}}}
    small = {"jsonrpc": "2.0", "method": "session/update", "params": {"n": 1}}
    walked: list[Any] = []
    real_size = wire_log._size

    def counted(value: Any) -> int:
        walked.append(value)
        return real_size(value)

    monkeypatch.setattr(wire_log, "_size", counted)
    log = wire_log.WireLog()
    logged: list[wire_log.WireEntry] = []
    reader = asyncio.StreamReader()
    reader.feed_data(line(big) + line(small))
    reader.feed_eof()

    def intercept(message: dict[str, Any]) -> bool:
        logged.append(log.record("in", message, version=1))
        return True

    t = NdjsonTransport(reader, FakeWriter(), print, intercept=intercept)  # type: ignore[arg-type]
    assert await t.receive() is None

    assert len(line(big)) >= OFF_LOOP_BYTES and logged[0].size == len(line(big))
    assert not [v for v in walked if isinstance(v, dict) and "suggestions" in v]  # the long one: never walked
    assert walked[0] == small  # the short line is, as it always was (it is cheap)
    assert logged[1].size == real_size(small)


async def test_the_channels_handed_to_the_sdk_are_its_private_transport_protocol() -> None:
    # The SDK's `Connection` takes any `acp._transport.Transport`, a protocol private to the SDK: a release
    # that changes it (a method more, another signature) would break every v1 session, and fails here first.
    from acp._transport import Transport

    assert {name for name in vars(Transport) if not name.startswith("_")} == {"send", "receive", "close"}
    for channel in (NdjsonTransport, _Announcing):
        for name in ("send", "receive", "close"):
            ours, theirs = getattr(channel, name), getattr(Transport, name)
            assert inspect.iscoroutinefunction(ours), f"{channel.__name__}.{name}"
            assert list(inspect.signature(ours).parameters) == list(inspect.signature(theirs).parameters)
    assert isinstance(transport()[0], Transport)
