"""Our own JSON-RPC 2.0 peer over one ndjson transport, for the ACP versions the SDK cannot speak.

The SDK's `Connection` is built for ACP v1: its receive loop dies on a JSON array, and it hands each
notification to its own task, where the order of upserts is lost. ACP v2 allows batch arrays and its
updates are order-sensitive, so this peer:

- reads objects and arrays; applies notifications synchronously, in wire order (a batch too);
- answers each request the other side makes from its own task (a permission may wait for a person),
  and a batch's requests with one array once they are all answered;
- matches responses to our requests by their exact id (ids are ours: integers we count);
- honours `$/cancel_request` both ways: an incoming one cancels the handler, which answers -32800.

Nothing here knows ACP methods; the caller's `RequestHandler` and `NotificationHandler` do.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Awaitable, Callable
from typing import Any

from webclient.acp.endpoint import MessageChannel

CANCEL_REQUEST = "$/cancel_request"
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603
REQUEST_CANCELLED = -32800

RequestHandler = Callable[[str, Any], Awaitable[Any]]
NotificationHandler = Callable[[str, Any], None]
WireObserver = Callable[[str, dict[str, Any]], None]


class RpcError(Exception):
    """A JSON-RPC error: raised by a request handler to answer with it, or raised to our caller when the
    other side answered one of our requests with it."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        self.code = code
        self.message = message
        self.data = data
        super().__init__(message)

    def to_wire(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


class PeerClosed(ConnectionError):
    """The other side's output ended before it answered."""


class JsonRpcPeer:
    """One JSON-RPC conversation. `run` reads until the stream ends; requests fail once it has."""

    def __init__(
        self,
        transport: MessageChannel,
        on_request: RequestHandler,
        on_notification: NotificationHandler,
        observe: WireObserver,
    ) -> None:
        self._transport = transport
        self._on_request = on_request
        self._on_notification = on_notification
        self._observe = observe
        self._ids = itertools.count()
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._serving: dict[str, asyncio.Task[Any]] = {}  # the other side's requests, by id as sent
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False

    # --- what we send ---------------------------------------------------------------------------------

    async def request(self, method: str, params: Any) -> Any:
        """Send a request and wait for its result; raises `RpcError` or `PeerClosed`.

        Cancelling the caller sends `$/cancel_request` for it (the other side still answers; that late
        answer is dropped)."""
        if self._closed:
            raise PeerClosed(f"{method}: the agent's output has ended")
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            await self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
            return await future
        except asyncio.CancelledError:
            if not self._closed:
                with contextlib.suppress(ConnectionError, OSError):
                    await self.notify(CANCEL_REQUEST, {"requestId": request_id})
            raise
        finally:
            self._pending.pop(request_id, None)

    async def notify(self, method: str, params: Any) -> None:
        await self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def _send(self, message: dict[str, Any] | list[dict[str, Any]]) -> None:
        for each in message if isinstance(message, list) else [message]:
            self._observe("out", each)
        await self._transport.send(message)  # type: ignore[arg-type]

    # --- what we read ---------------------------------------------------------------------------------

    async def run(self) -> None:
        """Read and dispatch until the stream ends; then every waiting request fails with PeerClosed."""
        try:
            while (value := await self._transport.receive_any()) is not None:
                if isinstance(value, list):
                    self._batch(value)
                else:
                    self._single(value)
        finally:
            self._close()

    def _single(self, message: dict[str, Any]) -> None:
        self._observe("in", message)
        reply = self._dispatch(message)
        if reply is not None:
            self._spawn(self._answer_one(reply))

    def _batch(self, entries: list[Any]) -> None:
        """A batch: every entry in order; the answers to its requests go back together, as one array."""
        if not entries:
            self._spawn(self._send_now(_error(None, RpcError(INVALID_REQUEST, "empty batch"))))
            return
        replies: list[Awaitable[dict[str, Any]]] = []
        for entry in entries:
            if not isinstance(entry, dict):
                replies.append(
                    _ready(_error(None, RpcError(INVALID_REQUEST, "batch entry is not an object")))
                )
                continue
            self._observe("in", entry)
            reply = self._dispatch(entry)
            if reply is not None:
                replies.append(reply)
        if replies:
            self._spawn(self._answer_all(replies))

    def _dispatch(self, message: dict[str, Any]) -> Awaitable[dict[str, Any]] | None:
        """Handle one message; for a request, the awaitable of its response."""
        method = message.get("method")
        if not isinstance(method, str):
            self._resolve(message)
            return None
        if "id" not in message:
            self._notification(method, message.get("params"))
            return None
        request_id = message["id"]
        task = asyncio.ensure_future(self._serve(method, message.get("params")))
        self._serving[_key(request_id)] = task
        task.add_done_callback(lambda _: self._serving.pop(_key(request_id), None))
        return self._response_of(request_id, task)

    def _notification(self, method: str, params: Any) -> None:
        if method == CANCEL_REQUEST:
            target = params.get("requestId") if isinstance(params, dict) else None
            task = self._serving.get(_key(target))
            if task is not None:
                task.cancel()
            return
        self._on_notification(method, params)

    async def _serve(self, method: str, params: Any) -> Any:
        try:
            return await self._on_request(method, params)
        except asyncio.CancelledError:
            raise RpcError(REQUEST_CANCELLED, "request cancelled") from None

    async def _response_of(self, request_id: Any, task: asyncio.Task[Any]) -> dict[str, Any]:
        try:
            result = await task
        except RpcError as exc:
            return _error(request_id, exc)
        except asyncio.CancelledError:
            return _error(request_id, RpcError(REQUEST_CANCELLED, "request cancelled"))
        except Exception as exc:  # a bug of ours must still answer the agent, not leave it waiting
            return _error(request_id, RpcError(INTERNAL_ERROR, f"internal error: {type(exc).__name__}"))
        return {"jsonrpc": "2.0", "id": request_id, "result": result}

    def _resolve(self, message: dict[str, Any]) -> None:
        request_id = message.get("id")
        future = self._pending.get(request_id) if isinstance(request_id, int) else None
        if future is None or future.done():
            return  # an answer to nothing we wait for (a cancelled request's late answer): logged only
        error = message.get("error")
        if isinstance(error, dict):
            code = error.get("code")
            future.set_exception(
                RpcError(
                    code if isinstance(code, int) else INTERNAL_ERROR,
                    str(error.get("message") or "error"),
                    error.get("data"),
                )
            )
        else:
            future.set_result(message.get("result"))

    async def _answer_one(self, reply: Awaitable[dict[str, Any]]) -> None:
        await self._send_now(await reply)

    async def _answer_all(self, replies: list[Awaitable[dict[str, Any]]]) -> None:
        answers = [await reply for reply in replies]
        with contextlib.suppress(ConnectionError, OSError):
            await self._send(answers)

    async def _send_now(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            await self._send(message)

    def _spawn(self, coroutine: Awaitable[None]) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _close(self) -> None:
        self._closed = True
        for future in self._pending.values():
            if not future.done():
                future.set_exception(PeerClosed("the agent's output has ended"))
        for task in list(self._serving.values()):
            task.cancel()

    async def aclose(self) -> None:
        """Stop serving: pending requests fail, handlers are cancelled, the transport closes."""
        self._close()
        for task in list(self._tasks):
            task.cancel()
        await self._transport.close()


def _error(request_id: Any, error: RpcError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_wire()}


async def _ready(value: dict[str, Any]) -> dict[str, Any]:
    return value


def _key(request_id: Any) -> str:
    # Ids are echoed exactly; keyed by their JSON form so 1 and "1" stay different requests.
    return f"{type(request_id).__name__}:{request_id!r}"
