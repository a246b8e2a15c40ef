"""JsonRpcPeer: our own JSON-RPC for ACP v2: batches, ids, cancellation, answers to every request."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.support.streams import FakeWriter
from webclient.acp.jsonrpc import JsonRpcPeer, PeerClosed, RpcError
from webclient.acp.transport import NdjsonTransport


class Peer:
    """A peer over an in-memory reader, recording what it handles and writes."""

    def __init__(self, handler: Any = None) -> None:
        self.reader = asyncio.StreamReader()
        self.writer = FakeWriter()
        self.notifications: list[tuple[str, Any]] = []
        self.observed: list[tuple[str, dict[str, Any]]] = []
        transport = NdjsonTransport(self.reader, self.writer, lambda line: None)  # type: ignore[arg-type]
        self.peer = JsonRpcPeer(
            transport, handler or self.echo, lambda m, p: self.notifications.append((m, p)), self.observe
        )
        self.task = asyncio.create_task(self.peer.run())

    async def echo(self, method: str, params: Any) -> Any:
        if method == "fail":
            raise RpcError(-32602, "bad params")
        return {"method": method, "params": params}

    def observe(self, direction: str, message: dict[str, Any]) -> None:
        self.observed.append((direction, message))

    def feed(self, value: Any) -> None:
        self.reader.feed_data(json.dumps(value).encode() + b"\n")

    def written(self) -> list[Any]:
        return [json.loads(line) for line in self.writer.data.decode().splitlines()]

    async def until_written(self, count: int) -> list[Any]:
        for _ in range(200):
            if len(self.written()) >= count:
                return self.written()
            await asyncio.sleep(0.01)
        raise AssertionError(f"expected {count} lines, got {self.written()}")


def notification(method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


async def test_a_batch_applies_notifications_in_order_and_answers_its_requests_as_one_array() -> None:
    p = Peer()
    p.feed(
        [
            notification("session/update", n=1),
            {"jsonrpc": "2.0", "id": "a", "method": "ping", "params": {}},
            notification("session/update", n=2),
            {"jsonrpc": "2.0", "id": 7, "method": "fail", "params": {}},
        ]
    )
    (answer,) = await p.until_written(1)
    assert [params["n"] for _, params in p.notifications] == [1, 2]
    assert isinstance(answer, list) and [a["id"] for a in answer] == ["a", 7]
    assert answer[0]["result"] == {"method": "ping", "params": {}}
    assert answer[1]["error"] == {"code": -32602, "message": "bad params"}
    assert [d for d, _ in p.observed] == ["in"] * 4 + ["out"] * 2


async def test_an_empty_batch_and_a_bad_entry_get_invalid_request() -> None:
    p = Peer()
    p.feed([])
    p.feed([42, notification("x")])
    first, second = await p.until_written(2)
    assert first == {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "empty batch"}}
    assert second[0]["error"]["code"] == -32600 and len(second) == 1  # nothing for the notification
    assert p.notifications == [("x", {})]


async def test_an_all_notification_batch_is_answered_with_nothing() -> None:
    p = Peer()
    p.feed([notification("a"), notification("b")])
    p.feed({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    (answer,) = await p.until_written(1)
    assert answer["id"] == 1  # the only line written answers the later request


async def test_our_request_is_matched_by_its_id_and_an_error_answer_raises() -> None:
    p = Peer()
    ok = asyncio.create_task(p.peer.request("session/new", {"cwd": "/w"}))
    bad = asyncio.create_task(p.peer.request("session/list", {}))
    first, second = await p.until_written(2)
    p.feed({"jsonrpc": "2.0", "id": second["id"], "error": {"code": -32000, "message": "auth", "data": 1}})
    p.feed({"jsonrpc": "2.0", "id": first["id"], "result": {"sessionId": "s"}})
    assert await ok == {"sessionId": "s"}
    with pytest.raises(RpcError) as caught:
        await bad
    assert (caught.value.code, caught.value.data) == (-32000, 1)


async def test_the_other_sides_cancel_request_cancels_the_handler_and_answers_32800() -> None:
    started = asyncio.Event()

    async def waits(method: str, params: Any) -> Any:
        started.set()
        await asyncio.Event().wait()

    p = Peer(waits)
    p.feed({"jsonrpc": "2.0", "id": "perm-1", "method": "session/request_permission", "params": {}})
    await asyncio.wait_for(started.wait(), 5)
    p.feed(notification("$/cancel_request", requestId="perm-1"))
    (answer,) = await p.until_written(1)
    assert answer == {
        "jsonrpc": "2.0",
        "id": "perm-1",
        "error": {"code": -32800, "message": "request cancelled"},
    }


async def test_cancelling_our_request_sends_cancel_request_and_the_late_answer_is_dropped() -> None:
    p = Peer()
    waiting = asyncio.create_task(p.peer.request("session/prompt", {}))
    (sent,) = await p.until_written(1)
    waiting.cancel()
    _, cancel = await p.until_written(2)
    assert cancel == {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": sent["id"]}}
    p.feed({"jsonrpc": "2.0", "id": sent["id"], "error": {"code": -32800, "message": "cancelled"}})
    p.feed(notification("after"))
    for _ in range(200):
        if p.notifications:
            break
        await asyncio.sleep(0.01)
    assert p.notifications == [("after", {})]  # the late answer changed nothing and reading went on


async def test_waiting_requests_fail_when_the_stream_ends() -> None:
    p = Peer()
    waiting = asyncio.create_task(p.peer.request("session/new", {}))
    await p.until_written(1)
    p.reader.feed_eof()
    with pytest.raises(PeerClosed):
        await waiting
    with pytest.raises(PeerClosed):
        await p.peer.request("session/list", {})


async def test_a_bug_in_a_handler_still_answers_the_agent() -> None:
    async def broken(method: str, params: Any) -> Any:
        raise KeyError("oops")

    p = Peer(broken)
    p.feed({"jsonrpc": "2.0", "id": 3, "method": "x"})
    (answer,) = await p.until_written(1)
    assert answer["id"] == 3 and answer["error"]["code"] == -32603
