"""One ACP v1 connection to one agent subprocess, through the official SDK's JSON-RPC `Connection`.

With its v2 twin (`webclient/acp/v2/`), the only code that knows ACP method names and camelCase. Every
call we make is a typed method whose result is one of our models; every request the agent makes of us
reaches the `AgentListener` as our models too. We send `initialize` ourselves (the SDK's models cannot
carry `promptSuggestions`), intercept `session/update` before the SDK validates it (its closed union
would drop unknown variants), and let the SDK's client router serve the agent's other requests
(`client_requests.py`). Nothing here knows HTML or the browser.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from acp.client.router import build_client_router
from acp.connection import Connection, StreamDirection, StreamEvent
from acp.exceptions import RequestError

from webclient.acp.answers import (
    agent_info,
    answered_options,
    as_object,
    new_session_id,
    opened_session,
    stored_sessions,
)
from webclient.acp.capabilities import PROTOCOL_VERSION
from webclient.acp.content_blocks import prompt_to_wire
from webclient.acp.controls import ConfigOption, config_options_from_wire
from webclient.acp.endpoint import AgentEndpoint, MessageChannel
from webclient.acp.listener import AgentListener
from webclient.acp.mcp_wire import mcp_wire
from webclient.acp.models import (
    AgentInfo,
    OpenedSession,
    PromptBlock,
    StoredSessionInfo,
    Translation,
    TurnAnswered,
)
from webclient.acp.output import OutputWatch, initialize_answer
from webclient.acp.suggestions import BASELINE_TYPES, allowed_types, offered_types
from webclient.acp.v1.answers import V1_ANSWERS, stop_reason
from webclient.acp.v1.client_requests import ClientRequests
from webclient.acp.v1.translate import translate_update
from webclient.agent_config import McpServer
from webclient.errors import AgentRequestError


class AgentConnection:
    """Spawn, initialize, talk to and stop one agent that speaks ACP v1."""

    protocol_version = PROTOCOL_VERSION

    def __init__(
        self,
        process: AgentEndpoint,
        listener: AgentListener,
        initialize_params: dict[str, Any],
        initialize_timeout: float,
    ) -> None:
        self.process = process
        self._listener = listener
        self._initialize_params = initialize_params
        self._initialize_timeout = initialize_timeout
        self._conn: Connection | None = None
        self._router: Any = None
        self.info: AgentInfo | None = None
        self._output = OutputWatch(process, listener)
        # The block types a prompt suggestion may use; known once `initialize` has been answered.
        self._suggestion_types = BASELINE_TYPES
        # Our `session/prompt` requests awaiting their answer: request id -> session id.
        self._prompts: dict[Any, str] = {}

    async def start(self) -> AgentInfo:
        """Spawn (or connect to) the agent and complete `initialize`. Raises AgentError subclasses."""
        await self.process.start()
        transport = _Announcing(
            self.process.channel(
                self._output.garbage, on_overflow=self._output.overflow, intercept=self._intercept
            ),
            self._sending,
        )
        self._router = build_client_router(ClientRequests(self._listener))  # type: ignore[arg-type]
        self._conn = Connection(
            self._handle,
            transport,
            observers=[self._observe],
        )
        result = await initialize_answer(
            self._request("initialize", self._initialize_params), self._initialize_timeout
        )
        self.info = agent_info(result, V1_ANSWERS)
        session_caps = as_object(self._initialize_params.get("clientCapabilities")).get("session")
        self._suggestion_types = allowed_types(offered_types(session_caps), self.info.capabilities.prompt)
        return self.info

    # --- what we ask of the agent -----------------------------------------------------------------------

    async def authenticate(self, method_id: str) -> None:
        await self._request("authenticate", {"methodId": method_id})

    async def new_session(self, cwd: Path, mcp_servers: Sequence[McpServer] = ()) -> OpenedSession:
        """`session/new` with the MCP servers the agent should connect to."""
        params = {"cwd": str(cwd), "mcpServers": mcp_wire(mcp_servers)}
        result = await self._request("session/new", params)
        return _opened(new_session_id(result), result)

    async def load_session(
        self, session_id: str, cwd: Path, mcp_servers: Sequence[McpServer] = ()
    ) -> OpenedSession:
        """`session/load`: the agent replays the session's history as updates before it answers."""
        params = {"sessionId": session_id, "cwd": str(cwd), "mcpServers": mcp_wire(mcp_servers)}
        return _opened(session_id, await self._request("session/load", params))

    async def resume_session(
        self, session_id: str, cwd: Path, mcp_servers: Sequence[McpServer] = ()
    ) -> OpenedSession:
        """`session/resume`: reconnect to a stored session without a replay."""
        params = {"sessionId": session_id, "cwd": str(cwd), "mcpServers": mcp_wire(mcp_servers)}
        return _opened(session_id, await self._request("session/resume", params))

    async def list_sessions(self, cwd: Path) -> tuple[StoredSessionInfo, ...]:
        """`session/list`: the sessions the agent keeps for `cwd`; malformed entries are left out."""
        return stored_sessions(await self._request("session/list", {"cwd": str(cwd)}))

    async def close_session(self, session_id: str) -> None:
        await self._request("session/close", {"sessionId": session_id})

    async def delete_session(self, session_id: str) -> None:
        """`session/delete`: offered by the page only where `sessionCapabilities.delete` says so."""
        await self._request("session/delete", {"sessionId": session_id})

    async def cancel_tool_call(self, session_id: str, tool_call_id: str) -> None:
        # ACP v1 stops tool calls only with the whole turn (`session/cancel`); the page offers no Stop.
        raise AgentRequestError("tool_call/cancel", -32601, "ACP v1 cannot stop one tool call")

    async def cancel_terminal(self, session_id: str, terminal_id: str) -> None:
        # In v1 the terminals are the client's own: webclient kills them itself.
        raise AgentRequestError("terminal/cancel", -32601, "ACP v1 has no agent terminals to stop")

    async def prompt(self, session_id: str, blocks: Sequence[PromptBlock]) -> str:
        """Send `session/prompt` with these blocks (see `prompt_to_wire`); return the stop reason."""
        params = {"sessionId": session_id, "prompt": prompt_to_wire(blocks)}
        return stop_reason(await self._request("session/prompt", params))

    async def cancel(self, session_id: str) -> None:
        await self._notify("session/cancel", {"sessionId": session_id})

    async def set_mode(self, session_id: str, mode_id: str) -> None:
        await self._request("session/set_mode", {"sessionId": session_id, "modeId": mode_id})

    async def set_config_option(
        self, session_id: str, config_id: str, value: str | bool
    ) -> tuple[ConfigOption, ...] | None:
        """`session/set_config_option`; the options as the agent now has them, when its answer lists them."""
        params: dict[str, Any] = {"sessionId": session_id, "configId": config_id, "value": value}
        if isinstance(value, bool):
            params["type"] = "boolean"
        result = await self._request("session/set_config_option", params)
        return answered_options(result, config_options_from_wire)

    async def wait_exit(self) -> int:
        return await self.process.wait()

    async def stop(self) -> None:
        """Close the connection and make sure the process and its group are gone."""
        await self.process.stop()
        if self._conn is not None:
            with contextlib.suppress(Exception):
                await self._conn.close()

    # --- the wire ---------------------------------------------------------------------------------------

    async def _request(self, method: str, params: dict[str, Any]) -> Any:
        """Send one request; map JSON-RPC errors and a dead agent to our exceptions."""
        if self._conn is None:
            raise RuntimeError("agent connection not started")
        try:
            return await self._conn.send_request(method, params)
        except RequestError as exc:
            raise AgentRequestError(method, exc.code, str(exc), exc.data) from exc
        except ConnectionError:
            raise await self._output.exited_error() from None

    async def _notify(self, method: str, params: dict[str, Any]) -> None:
        if self._conn is None:
            raise RuntimeError("agent connection not started")
        try:
            await self._conn.send_notification(method, params)
        except (ConnectionError, OSError):
            raise await self._output.exited_error() from None

    def _sending(self, message: dict[str, Any]) -> None:
        if message.get("method") == "session/prompt" and "id" in message:
            self._prompts[message["id"]] = str(as_object(message.get("params")).get("sessionId", ""))

    def _intercept(self, message: dict[str, Any]) -> bool:
        if "method" not in message and (session_id := self._prompts.pop(message.get("id"), None)):
            # The turn's answer, told in wire order: the SDK resolves the request later, on a task of
            # its own, and a chunk the agent wrote right after its answer (claude-agent-acp's notices)
            # must not join the answered message meanwhile.
            reason = as_object(message.get("result")).get("stopReason")
            answered = TurnAnswered(stop_reason=reason if isinstance(reason, str) else None)
            self._listener.on_update(Translation(session_id, (answered,)))
            return False
        # `session/update` notifications are the stream: handled here, as each line is read, so they reach
        # the listener in wire order (the SDK would hand each to its own task, where order is not kept)
        # and without the SDK's per-message copy, task and tracing span.
        if message.get("method") != "session/update" or "id" in message:
            return False
        self._listener.on_wire("in", message, PROTOCOL_VERSION)
        self._listener.on_update(translate_update(message.get("params"), self._suggestion_types))
        return True

    def _observe(self, event: StreamEvent) -> None:
        # Every other message, both ways, for the protocol log; observers run synchronously in the
        # receive loop, so the log keeps wire order.
        direction = "in" if event.direction is StreamDirection.INCOMING else "out"
        self._listener.on_wire(direction, event.message, PROTOCOL_VERSION)

    async def _handle(self, method: str, params: Any, is_notification: bool) -> Any:
        return await self._router(method, params, is_notification)


class _Announcing:
    """A channel that tells the connection of each message before it goes out, so the answer to a
    request can never be read before the connection knows the request."""

    def __init__(self, inner: MessageChannel, sending: Callable[[dict[str, Any]], None]) -> None:
        self._inner = inner
        self._sending = sending

    async def send(self, message: dict[str, Any]) -> None:
        self._sending(message)
        await self._inner.send(message)

    async def receive(self) -> dict[str, Any] | None:
        return await self._inner.receive()

    async def receive_any(self, *, batches: bool = True) -> dict[str, Any] | list[Any] | None:
        return await self._inner.receive_any(batches=batches)

    async def close(self) -> None:
        await self._inner.close()


def _opened(session_id: str, result: Any) -> OpenedSession:
    return opened_session(session_id, result, config_options_from_wire, with_modes=True)
