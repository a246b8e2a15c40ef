"""ACP over Streamable HTTP, as ACP's HTTP transport RFD and the official SDK's `AcpServer` define it.

- `initialize` is POSTed without a connection id; its `200` answer carries the JSON-RPC response and
  the `Acp-Connection-Id` header, which every later request carries.
- Every later message is a POST answered `202`; what the agent says comes on long-lived SSE streams:
  one for the connection (answers to `session/new`, `session/load`, messages of no session) and one
  per session (`Acp-Session-Id`: its updates, its requests, the answers to its requests), opened before
  the first message for that session is sent, or when an answer names a new session. An event is one
  message; one larger than a stdio line may be ends the connection (the agent does not get to grow our
  memory without end).
- An answer to the agent's own request goes with the session header of the stream it came on.
- Every POST's answer is read with the same byte cap as an event, and within a total deadline: an
  endpoint that answers with a body that never ends (or ends very slowly) is an error that says so,
  not memory or a wait without end.
- `DELETE` ends the connection. The connection stream's end is the agent's end; a session stream that
  ends fails that session's requests in flight, and the next message for it opens it again.

Cookies the server sets are kept for the connection (the client's jar), as the RFD asks.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import httpx

from webclient.acp.endpoint import GarbageCallback, Intercept
from webclient.acp.remote.frames import MAX_MESSAGE_BYTES, FrameChannel, dump, parse_frame
from webclient.acp.remote.refusals import http_refusal, refusal, shown_url
from webclient.acp.remote.sse import EventTooLarge, events
from webclient.aio import cancel_and_wait
from webclient.errors import RemoteRefused, RemoteUnreachable

CONNECTION_ID = "Acp-Connection-Id"
SESSION_ID = "Acp-Session-Id"
# Statuses that mean the connection itself is unusable or gone (as the SDK's own client reads them).
CONNECTION_FAILURES = {401, 403, 404, 410}
INTERNAL_ERROR = -32603
# How long a POST may take, its whole answer read: a message is answered at once (202), or, for
# initialize, with one JSON-RPC response.
POST_DEADLINE = 30.0

Key = tuple[type, Any]


class StreamableHttpChannel(FrameChannel):
    """A `MessageChannel` over one ACP connection of a Streamable HTTP endpoint."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        url: str,
        on_garbage: GarbageCallback,
        intercept: Intercept | None,
        on_end: Callable[[str], None],
    ) -> None:
        super().__init__(on_garbage, intercept)
        self._client = client
        self._url = url
        self._on_end = on_end
        self._incoming: asyncio.Queue[tuple[Any, str] | None] = asyncio.Queue()
        self._connection_id: str | None = None
        self._streams: dict[str | None, asyncio.Task[None]] = {}
        self._opened: dict[str, asyncio.Future[bool]] = {}
        self._answer_to: dict[Key, str] = {}  # the agent's requests: the session stream each came on
        self._in_flight: dict[Key, tuple[str, Any]] = {}  # our session requests: session and id
        self._lock = asyncio.Lock()
        self._ended = False

    # --- sending --------------------------------------------------------------------------------------

    async def send(self, message: dict[str, Any]) -> None:
        if self._ended:
            raise ConnectionError("the connection to the remote agent has ended")
        async with self._lock:  # in order, as on a pipe: a cancel must not overtake its prompt
            if self._connection_id is None:
                await self._initialize(message)
            else:
                await self._post_connected(message, self._connection_id)

    async def _initialize(self, message: dict[str, Any]) -> None:
        if message.get("method") != "initialize":
            raise ConnectionError("the first message to a Streamable HTTP agent must be initialize")
        what = "its answer to ACP's initialize"
        try:
            response, body = await self._post(message, _JSON)
        except httpx.HTTPError as exc:
            raise refusal(self._url, exc) from None
        except AnswerTooLarge:
            raise RemoteRefused(
                f"{self._shown} sent more than {MAX_MESSAGE_BYTES:,} bytes in {what}"
            ) from None
        except TimeoutError:
            raise RemoteUnreachable(
                f"{self._shown} did not finish {what} within {POST_DEADLINE:g} s"
            ) from None
        if response.status_code != 200:
            raise http_refusal(self._url, response.status_code, "an answer to ACP's initialize")
        connection_id = response.headers.get(CONNECTION_ID)
        if not connection_id:
            raise http_refusal(self._url, 200, f"an answer with an {CONNECTION_ID} header")
        self._connection_id = connection_id
        self._streams[None] = asyncio.create_task(self._read(None), name="acp-http-connection")
        self._arrived(body.decode("utf-8", errors="replace"), None)

    async def _post(self, message: dict[str, Any], headers: dict[str, str]) -> tuple[httpx.Response, bytes]:
        """POST `message`: the response and its body, at most `MAX_MESSAGE_BYTES` of it, all within
        `POST_DEADLINE`; raises `AnswerTooLarge`, `TimeoutError` or an `httpx.HTTPError`."""
        async with asyncio.timeout(POST_DEADLINE):
            async with self._client.stream(
                "POST", self._url, content=dump(message), headers=headers
            ) as response:
                return response, await capped_body(response, MAX_MESSAGE_BYTES)

    @property
    def _shown(self) -> str:
        return f"the remote agent at {shown_url(self._url)}"

    async def _post_connected(self, message: dict[str, Any], connection_id: str) -> None:
        session = self._session_of(message)
        headers = {**_JSON, CONNECTION_ID: connection_id}
        if session is not None:
            headers[SESSION_ID] = session
            if not await self._open_session(session):
                self._fail_request(message, f"the session stream of {session!r} could not be opened")
                return
        key = _key(message.get("id")) if "method" in message and "id" in message else None
        if key is not None and session is not None:
            self._in_flight[key] = (session, message["id"])
        try:
            response, body = await self._post(message, headers)
        except httpx.HTTPError as exc:
            self._end(f"sending to it failed ({exc or type(exc).__name__})")
            raise ConnectionError(str(exc)) from None
        except AnswerTooLarge:
            self._end(f"it answered a message with more than {MAX_MESSAGE_BYTES:,} bytes")
            raise ConnectionError("answer too large") from None
        except TimeoutError:
            self._end(f"it did not finish its answer to a message within {POST_DEADLINE:g} s")
            raise ConnectionError("answer too slow") from None
        if response.status_code in (200, 202):
            return
        if response.status_code in CONNECTION_FAILURES:
            self._end(f"it answered HTTP {response.status_code} to a message of this connection")
            raise ConnectionError(f"HTTP {response.status_code}")
        if key is not None:
            self._in_flight.pop(key, None)
        self._fail_request(message, f"HTTP {response.status_code}: {body[:200].decode(errors='replace')}")

    def _session_of(self, message: dict[str, Any]) -> str | None:
        if "method" in message:
            params = message.get("params")
            session = params.get("sessionId") if isinstance(params, dict) else None
            return session if isinstance(session, str) else None
        return self._answer_to.pop(_key(message.get("id")), None)

    def _fail_request(self, message: dict[str, Any], why: str) -> None:
        """A request that cannot reach the agent gets its error answer here (as a JSON-RPC error)."""
        if "method" in message and "id" in message:
            error = {"code": INTERNAL_ERROR, "message": f"not delivered to the remote agent: {why}"}
            self._deliver({"jsonrpc": "2.0", "id": message["id"], "error": error})

    # --- receiving ------------------------------------------------------------------------------------

    async def _open_session(self, session: str) -> bool:
        """The session's stream is open (opened now if need be); False when the server refused it."""
        if session in self._streams:
            waiting = self._opened.get(session)
            return True if waiting is None else await waiting
        opened: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._opened[session] = opened
        self._streams[session] = asyncio.create_task(self._read(session), name="acp-http-session")
        return await opened

    async def _read(self, session: str | None) -> None:
        assert self._connection_id is not None
        headers = {**_EVENTS, CONNECTION_ID: self._connection_id} | ({SESSION_ID: session} if session else {})
        why = "its event stream ended"
        try:
            async with self._client.stream("GET", self._url, headers=headers) as response:
                kind = response.headers.get("content-type", "").partition(";")[0].strip()
                if response.status_code != 200 or kind != "text/event-stream":
                    shown = kind or "no content type"
                    why = f"it answered HTTP {response.status_code} ({shown}) to the event stream's GET"
                    return
                self._settle(session, True)
                async for data in events(response, MAX_MESSAGE_BYTES):
                    self._arrived(data, session)
        except httpx.HTTPError as exc:
            why = f"its event stream broke ({exc or type(exc).__name__})"
        except EventTooLarge as exc:
            why = f"it sent more than webclient takes in one message: {exc}"
        finally:
            self._settle(session, False)
            self._stream_ended(session, why)

    def _settle(self, session: str | None, opened: bool) -> None:
        future = self._opened.pop(session, None) if session is not None else None
        if future is not None and not future.done():
            future.set_result(opened)

    def _arrived(self, text: str, session: str | None) -> None:
        value = parse_frame(text)
        if isinstance(value, dict):
            self._track(value, session)
        self._incoming.put_nowait((value, text))

    def _deliver(self, message: dict[str, Any]) -> None:
        self._incoming.put_nowait((message, dump(message)))

    def _track(self, message: dict[str, Any], session: str | None) -> None:
        if "method" in message:
            if "id" in message and session is not None:
                self._answer_to[_key(message["id"])] = session
            return
        self._in_flight.pop(_key(message.get("id")), None)
        result = message.get("result")
        opened = result.get("sessionId") if isinstance(result, dict) else None
        if isinstance(opened, str) and opened not in self._streams and not self._ended:
            # A new session: its stream opens now, so its first updates have a reader.
            self._opened[opened] = asyncio.get_running_loop().create_future()
            self._streams[opened] = asyncio.create_task(self._read(opened), name="acp-http-session")

    def _stream_ended(self, session: str | None, why: str) -> None:
        if session is None:
            self._end(why)
            return
        if self._streams.get(session) is asyncio.current_task():
            del self._streams[session]
        for key, (owner, request_id) in list(self._in_flight.items()):
            if owner == session:
                del self._in_flight[key]
                self._fail_request({"method": "", "id": request_id}, f"the session's stream ended: {why}")

    async def _next(self) -> tuple[Any, str] | None:
        frame = await self._incoming.get()
        if frame is None:
            self._incoming.put_nowait(None)  # every later read sees the end too
        return frame

    # --- the end --------------------------------------------------------------------------------------

    def _end(self, why: str) -> None:
        if self._ended:
            return
        self._ended = True
        self._incoming.put_nowait(None)
        self._on_end(why)

    async def close(self) -> None:
        """`DELETE` the connection (if the server still listens), and stop reading."""
        connection_id, self._connection_id = self._connection_id, None
        self._end("webclient closed it")
        if connection_id is not None:
            with contextlib.suppress(httpx.HTTPError):
                await self._client.delete(self._url, headers={CONNECTION_ID: connection_id}, timeout=2.0)
        for task in list(self._streams.values()):
            await cancel_and_wait(task)
        self._streams.clear()


_JSON = {"Content-Type": "application/json"}
_EVENTS = {"Accept": "text/event-stream", "Cache-Control": "no-store"}


class AnswerTooLarge(Exception):
    """A POST's answer passed the size limit."""


async def capped_body(response: httpx.Response, limit: int) -> bytes:
    """The response's body, read as it comes; `AnswerTooLarge` past `limit` bytes (an endpoint that
    answers with a body that never ends must not grow our memory)."""
    pieces: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > limit:
            raise AnswerTooLarge(f"more than {limit:,} bytes")
        pieces.append(chunk)
    return b"".join(pieces)


def _key(request_id: Any) -> Key:
    """A JSON-RPC id as a dict key: 1 and "1" are different ids."""
    return (type(request_id), request_id)
