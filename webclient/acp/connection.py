"""One ACP connection to one agent subprocess, through the official SDK's JSON-RPC `Connection`.

We send `initialize` ourselves (the SDK's models cannot carry `promptSuggestions`), intercept
`session/update` before the SDK validates it (its closed union would drop unknown variants), translate
it into our models, and let the SDK's client router serve every other agent request. This layer knows
nothing of HTML or the browser; it reports to an `AgentListener`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from acp.client.router import build_client_router
from acp.connection import Connection, StreamDirection, StreamEvent
from acp.exceptions import RequestError

from webclient.acp.models import AuthMethod, Notice, NoticeLevel
from webclient.acp.process import AgentProcess
from webclient.acp.translate import Translation, translate_update
from webclient.errors import AgentExitedError, AgentRequestError, AgentTimeoutError, RequestRefused

AUTH_REQUIRED = -32000


class AgentListener(Protocol):
    """What the layer above gets told. Called on the event loop, in wire order."""

    def on_update(self, translation: Translation) -> None: ...

    def on_notice(self, notice: Notice) -> None: ...

    def on_wire(self, direction: str, message: dict[str, Any]) -> None: ...

    async def request_permission(
        self, session_id: str, tool_call: dict[str, Any], options: list[dict[str, Any]]
    ) -> dict[str, Any]: ...

    async def read_text_file(
        self, session_id: str, path: str, line: int | None, limit: int | None
    ) -> str: ...

    async def write_text_file(self, session_id: str, path: str, content: str) -> None: ...


@dataclass
class AgentInfo:
    """What the agent said about itself in its `initialize` response."""

    protocol_version: int
    name: str
    title: str | None
    version: str | None
    capabilities: dict[str, Any] = field(default_factory=dict)
    auth_methods: tuple[AuthMethod, ...] = ()

    @property
    def display_name(self) -> str:
        return self.title or self.name

    @property
    def prompt_capabilities(self) -> dict[str, Any]:
        value = self.capabilities.get("promptCapabilities")
        return value if isinstance(value, dict) else {}


class AgentConnection:
    """Spawn, initialize, talk to and stop one agent."""

    def __init__(
        self,
        process: AgentProcess,
        listener: AgentListener,
        initialize_params: dict[str, Any],
        initialize_timeout: float,
    ) -> None:
        self.process = process
        self._listener = listener
        self._initialize_params = initialize_params
        self._initialize_timeout = initialize_timeout
        self._conn: Connection | None = None
        self.info: AgentInfo | None = None
        self._stopping: asyncio.Future[None] | None = None  # a stop the agent's output forced

    async def start(self) -> AgentInfo:
        """Spawn the agent and complete `initialize`. Raises AgentError subclasses on failure."""
        from webclient.acp.transport import NdjsonTransport

        await self.process.start()
        proc = self.process.process
        assert proc.stdout is not None and proc.stdin is not None
        transport = NdjsonTransport(proc.stdout, proc.stdin, self._on_garbage, on_overflow=self._on_overflow)
        self._conn = Connection(
            self._handle,
            transport,
            observers=[self._observe],  # type: ignore[arg-type]
        )
        try:
            result = await asyncio.wait_for(
                self.request("initialize", self._initialize_params), timeout=self._initialize_timeout
            )
        except TimeoutError:
            raise AgentTimeoutError(
                f"the agent did not answer initialize within {self._initialize_timeout:g} s"
            ) from None
        self.info = _agent_info(result)
        return self.info

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        """Send one request; map JSON-RPC errors and a dead agent to our exceptions."""
        if self._conn is None:
            raise RuntimeError("agent connection not started")
        try:
            return await self._conn.send_request(method, params)
        except RequestError as exc:
            raise AgentRequestError(method, exc.code, str(exc), exc.data) from exc
        except ConnectionError:
            raise await self._exited_error() from None

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        if self._conn is None:
            raise RuntimeError("agent connection not started")
        try:
            await self._conn.send_notification(method, params)
        except (ConnectionError, OSError):
            raise await self._exited_error() from None

    async def new_session(self, cwd: Path) -> dict[str, Any]:
        result = await self.request("session/new", {"cwd": str(cwd), "mcpServers": []})
        if not isinstance(result, dict) or not isinstance(result.get("sessionId"), str):
            raise AgentRequestError("session/new", -32603, "the agent's answer has no sessionId")
        return result

    async def authenticate(self, method_id: str) -> None:
        await self.request("authenticate", {"methodId": method_id})

    async def prompt(self, session_id: str, prompt: Sequence[dict[str, Any]]) -> str:
        """Send `session/prompt`; return the stop reason when the turn ends."""
        result = await self.request("session/prompt", {"sessionId": session_id, "prompt": list(prompt)})
        reason = result.get("stopReason") if isinstance(result, dict) else None
        return reason if isinstance(reason, str) else "end_turn"

    async def cancel(self, session_id: str) -> None:
        await self.notify("session/cancel", {"sessionId": session_id})

    async def wait_exit(self) -> int:
        return await self.process.wait()

    async def stop(self) -> None:
        """Close the connection and make sure the process and its group are gone."""
        await self.process.stop()
        if self._conn is not None:
            with contextlib.suppress(Exception):
                await self._conn.close()

    # --- incoming --------------------------------------------------------------------------------------

    def _observe(self, event: StreamEvent) -> None:
        # Observers run synchronously in the receive loop, so updates reach the listener in wire order;
        # the SDK hands each message's handler to its own task, where order is no longer guaranteed.
        message = event.message
        direction = "in" if event.direction is StreamDirection.INCOMING else "out"
        self._listener.on_wire(direction, message)
        if direction == "in" and message.get("method") == "session/update" and "id" not in message:
            self._listener.on_update(translate_update(message.get("params")))

    async def _handle(self, method: str, params: Any, is_notification: bool) -> Any:
        if method == "session/update" and is_notification:
            return None  # already translated in _observe
        return await self._router(method, params, is_notification)

    @property
    def _router(self) -> Any:
        router = getattr(self, "_cached_router", None)
        if router is None:
            router = build_client_router(_ClientRequests(self._listener))  # type: ignore[arg-type]
            self._cached_router = router
        return router

    def _on_garbage(self, line: str) -> None:
        preview = line if len(line) <= 200 else line[:200] + "…"
        self._listener.on_notice(
            Notice(
                level=NoticeLevel.WARNING, text="the agent wrote a line that is not JSON-RPC", detail=preview
            )
        )

    def _on_overflow(self, size: int) -> None:
        # The transport stopped reading mid-line; the agent cannot be understood any more, so it stops.
        from webclient.acp.transport import MAX_LINE_BYTES

        self._listener.on_notice(
            Notice(
                level=NoticeLevel.ERROR,
                text=f"the agent wrote a line longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB "
                "without a newline; webclient stopped the agent so that memory stays bounded",
                detail=f"{size:,} bytes read without a newline",
            )
        )
        self._stopping = asyncio.ensure_future(self.process.stop(grace=0.5))

    async def _exited_error(self) -> AgentExitedError:
        code: int | None = None
        with contextlib.suppress(asyncio.TimeoutError):
            code = await asyncio.wait_for(self.process.wait(), timeout=2.0)
        return AgentExitedError(code, self.process.stderr_tail())


class _ClientRequests:
    """The requests an agent may send us, in the shape the SDK's client router calls them."""

    def __init__(self, listener: AgentListener) -> None:
        self._listener = listener

    async def request_permission(self, options: Any, session_id: str, tool_call: Any, **_: Any) -> Any:
        from acp.schema import RequestPermissionResponse

        outcome = await self._listener.request_permission(
            session_id,
            tool_call.model_dump(mode="json", by_alias=True, exclude_none=True),
            [o.model_dump(mode="json", by_alias=True, exclude_none=True) for o in options],
        )
        return RequestPermissionResponse.model_validate({"outcome": outcome})

    async def read_text_file(
        self, path: str, session_id: str, line: int | None = None, limit: int | None = None, **_: Any
    ) -> Any:
        from acp.schema import ReadTextFileResponse

        try:
            content = await self._listener.read_text_file(session_id, path, line, limit)
        except RequestRefused as exc:
            raise RequestError(exc.code, str(exc), {"path": path}) from None
        return ReadTextFileResponse(content=content)

    async def write_text_file(self, content: str, path: str, session_id: str, **_: Any) -> Any:
        from acp.schema import WriteTextFileResponse

        try:
            await self._listener.write_text_file(session_id, path, content)
        except RequestRefused as exc:
            raise RequestError(exc.code, str(exc), {"path": path}) from None
        return WriteTextFileResponse()


def _agent_info(result: Any) -> AgentInfo:
    if not isinstance(result, dict):
        raise AgentRequestError("initialize", -32603, "the agent's answer is not an object")
    info = _object(result.get("agentInfo"))
    caps = _object(result.get("agentCapabilities"))
    methods = []
    for raw in result.get("authMethods") or []:
        if isinstance(raw, dict) and isinstance(raw.get("id"), str):
            methods.append(
                AuthMethod(
                    id=raw["id"], name=str(raw.get("name") or raw["id"]), description=raw.get("description")
                )
            )
    version = result.get("protocolVersion")
    return AgentInfo(
        protocol_version=version if isinstance(version, int) else 0,
        name=str(info.get("name") or "agent"),
        title=info.get("title") if isinstance(info.get("title"), str) else None,
        version=info.get("version") if isinstance(info.get("version"), str) else None,
        capabilities=caps,
        auth_methods=tuple(methods),
    )


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
