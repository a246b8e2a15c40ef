"""JSON-RPC 2.0 for the agent side of ACP v2: ndjson over stdio, batches, and requests both ways.

Why not the SDK's ``Connection``: its receive loop dies on a JSON array (a v2 batch line). This peer:

- reads one message per line; a line may be an array (a batch): its entries are started in array order,
  notifications and responses inline, and the answers to its requests go out as one array (nothing for
  an all-notification batch; an empty array is a single ``-32600`` with ``id: null``);
- runs each incoming request in its own task, so a slow one never blocks ``session/cancel``; a
  ``$/cancel_request`` for it ends it with ``-32800``; an unknown method is ``-32601`` (the handler says so);
- sends requests of its own under string ids (``demo-1``, ...) kept in a pending map; a request whose
  waiter is cancelled is withdrawn with ``$/cancel_request``;
- writes every outgoing message through one FIFO queue, enqueued synchronously: a handler's response is
  queued the moment it returns, so anything a task it spawned sends comes after it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from acp.exceptions import RequestError

from .blocks import JsonDict
from .tasks import TaskOwner

__all__ = ["CANCEL_REQUEST", "JsonRpcPeer", "RequestCancelled"]

log = logging.getLogger(__name__)

CANCEL_REQUEST = "$/cancel_request"
REQUEST_CANCELLED = -32800

RequestHandler = Callable[[str, Any], Awaitable[Any]]
NotificationHandler = Callable[[str, Any], Awaitable[None]]
# Takes one answer (or None) and whether it announces a new answer owed.
Deliver = Callable[[Any, bool], None]


class RequestCancelled(RequestError):
    """The answer to a request the other side withdrew with ``$/cancel_request``."""

    def __init__(self) -> None:
        super().__init__(REQUEST_CANCELLED, "Request cancelled")


class JsonRpcPeer:
    """One JSON-RPC connection; ``run()`` is the only reader and returns at end of input."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._on_request: RequestHandler = _no_requests
        self._on_notification: NotificationHandler = _no_notifications
        self._outbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._pending: dict[str, asyncio.Future[Any]] = {}
        self._running: dict[str, asyncio.Task[None]] = {}  # incoming requests, by json.dumps(id)
        self._withdrawn: set[str] = set()
        self._next_id = 0
        self._closed = False
        self._tasks = TaskOwner("jsonrpc")
        self._write_task: asyncio.Task[None] | None = None

    async def run(
        self, on_request: RequestHandler, on_notification: NotificationHandler, first_line: bytes = b""
    ) -> None:
        """Handle ``first_line`` (already read by the caller), then every line until end of input.

        ``on_request`` answers a request (its return value is the result; ``RequestError`` is the error
        answer); ``on_notification`` takes a notification (``$/cancel_request`` is handled here).
        """
        self._on_request, self._on_notification = on_request, on_notification
        self._write_task = asyncio.get_running_loop().create_task(self._write_loop(), name="jsonrpc:write")
        if first_line:
            await self._receive(first_line)
        while True:
            try:
                line = await self._reader.readline()
            except ValueError:  # a line longer than the reader's limit; the reader skipped it
                self._deliver(_error(None, RequestError.parse_error({"reason": "line too long"})))
                continue
            if not line:
                return
            await self._receive(line)

    async def close(self) -> None:
        """Fail what still waits for the client, stop running requests, flush the outbox."""
        self._closed = True
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ConnectionError("the client closed the connection"))
        self._pending.clear()
        await self._tasks.close()
        self._outbox.put_nowait(None)  # after everything queued so far
        if self._write_task is not None:
            with contextlib.suppress(ConnectionError, OSError):
                await self._write_task

    async def notify(self, method: str, params: JsonDict) -> None:
        """Queue a notification; raises ConnectionError once the connection is closed."""
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: JsonDict) -> Any:
        """Send a request and wait for its result; an error answer raises ``RequestError``."""
        self._next_id += 1
        request_id = f"demo-{self._next_id}"
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        try:
            return await future
        except asyncio.CancelledError:
            if self._pending.pop(request_id, None) is not None and not self._closed:
                self._send({"jsonrpc": "2.0", "method": CANCEL_REQUEST, "params": {"requestId": request_id}})
            raise
        finally:
            self._pending.pop(request_id, None)

    # -- reading ---------------------------------------------------------------------------------------

    async def _receive(self, line: bytes) -> None:
        if not line.strip():
            return
        try:
            message = json.loads(line)
        except ValueError:
            self._deliver(_error(None, RequestError.parse_error()))
            return
        if not isinstance(message, list):
            await self._start(message, self._deliver)
            return
        if not message:
            self._deliver(_error(None, RequestError.invalid_request({"reason": "empty batch"})))
            return
        batch = _Batch(self._deliver)
        for entry in message:
            await self._start(entry, batch.add)
        batch.close()

    async def _start(self, message: Any, deliver: Deliver) -> None:
        """Begin one message: answer it at once, start a task that answers it, or take it in silently."""
        if not isinstance(message, dict):
            deliver(_error(None, RequestError.invalid_request({"reason": "not an object"})), True)
            return
        method = message.get("method")
        if method is None and "id" in message and ("result" in message or "error" in message):
            self._resolve(message)
            return
        request_id = message.get("id")
        if not isinstance(method, str) or not _valid_id(request_id):
            answer_id = request_id if _valid_id(request_id) else None
            deliver(_error(answer_id, RequestError.invalid_request()), True)
            return
        if "id" not in message:
            await self._notification(method, message.get("params"))
            return
        deliver(None, True)  # one answer owed
        key = json.dumps(request_id)
        task = self._tasks.spawn(self._handle(request_id, method, message.get("params"), deliver))
        self._running[key] = task
        task.add_done_callback(partial(self._finished, request_id, key, deliver))
        # Let the handler run up to its first real wait before the next message is taken, so a
        # notification right behind a request (prompt, then cancel) is applied after it, in wire order.
        await asyncio.sleep(0)

    async def _notification(self, method: str, params: Any) -> None:
        if method == CANCEL_REQUEST:
            key = json.dumps(params.get("requestId") if isinstance(params, dict) else None)
            if (task := self._running.get(key)) is not None and not task.done():
                self._withdrawn.add(key)
                task.cancel()
            return
        try:
            await self._on_notification(method, params)
        except Exception:
            log.exception("notification %s failed", method)

    async def _handle(self, request_id: Any, method: str, params: Any, deliver: Deliver) -> None:
        """Run the handler and deliver its answer in the same step as it returns.

        So the answer is queued before anything the handler spawned can send (a turn's first update).
        """
        try:
            answer: JsonDict = {
                "jsonrpc": "2.0",
                "id": request_id,
                "result": await self._on_request(method, params),
            }
        except RequestError as exc:
            answer = _error(request_id, exc)
        except Exception:
            log.exception("request %s failed", method)
            answer = _error(request_id, RequestError.internal_error({"method": method}))
        deliver(answer, False)

    def _finished(self, request_id: Any, key: str, deliver: Deliver, task: asyncio.Task[None]) -> None:
        self._running.pop(key, None)
        if key in self._withdrawn:
            self._withdrawn.discard(key)
            if task.cancelled():  # withdrawn by $/cancel_request, even before the handler ran
                deliver(_error(request_id, RequestCancelled()), False)

    def _deliver(self, answer: JsonDict | None, owed: bool = False) -> None:
        """Send one answer of a single (non-batch) message; ``None`` only announces one is owed."""
        if answer is not None:
            with contextlib.suppress(ConnectionError):
                self._send(answer)

    def _resolve(self, message: JsonDict) -> None:
        future = self._pending.pop(message["id"], None) if isinstance(message["id"], str) else None
        if future is None or future.done():
            log.debug("ignoring a response to no pending request: %r", message.get("id"))
            return
        error = message.get("error")
        if "error" in message and isinstance(error, dict):
            code = error.get("code")
            future.set_exception(
                RequestError(
                    code if isinstance(code, int) else -32603,
                    str(error.get("message", "")),
                    error.get("data"),
                )
            )
        else:
            future.set_result(message.get("result"))

    # -- writing ---------------------------------------------------------------------------------------

    def _send(self, message: Any) -> None:
        if self._closed or (self._write_task is not None and self._write_task.done()):
            raise ConnectionError("the connection is closed")
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
        self._outbox.put_nowait(line.encode("utf-8"))

    async def _write_loop(self) -> None:
        while (data := await self._outbox.get()) is not None:
            self._writer.write(data)
            await self._writer.drain()


class _Batch:
    """Collects the answers of one batch line and sends them as one array when the last one is in."""

    def __init__(self, send: Deliver) -> None:
        self._send = send
        self._answers: list[JsonDict] = []
        self._owed = 0
        self._complete = False

    def add(self, answer: JsonDict | None, owed: bool = False) -> None:
        """Record an answer; ``owed`` counts a new answer to wait for (``None`` = only that)."""
        if owed:
            self._owed += 1
        if answer is not None:
            self._answers.append(answer)
        self._flush()

    def close(self) -> None:
        """Every entry has been started: send once all owed answers are in (nothing if none is owed)."""
        self._complete = True
        self._flush()

    def _flush(self) -> None:
        if self._complete and self._owed and len(self._answers) == self._owed:
            self._send(self._answers, False)
            self._owed = 0


async def _no_requests(method: str, params: Any) -> Any:
    raise RequestError.method_not_found(method)


async def _no_notifications(method: str, params: Any) -> None:
    return None


def _valid_id(value: Any) -> bool:
    return value is None or isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _error(request_id: Any, error: RequestError) -> JsonDict:
    body: JsonDict = {"code": error.code, "message": str(error)}
    if error.data is not None:
        body["data"] = error.data
    return {"jsonrpc": "2.0", "id": request_id, "error": body}
