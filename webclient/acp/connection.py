"""One ACP connection to one agent subprocess, through the official SDK's JSON-RPC `Connection`.

This is the only code that knows ACP method names and camelCase. Every call we make is a typed method
whose result is one of our models; every request the agent makes of us reaches the `AgentListener` as
our models too. We send `initialize` ourselves (the SDK's models cannot carry `promptSuggestions`),
intercept `session/update` before the SDK validates it (its closed union would drop unknown variants),
and let the SDK's client router serve the agent's other requests. Nothing here knows HTML or the browser.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from acp.client.router import build_client_router
from acp.connection import Connection, StreamDirection, StreamEvent
from acp.exceptions import RequestError

from webclient.acp.capabilities import PROTOCOL_VERSION
from webclient.acp.controls import ConfigOption, config_options_from_wire, modes_from_wire
from webclient.acp.models import (
    AgentCapabilities,
    AgentInfo,
    AuthMethod,
    AuthVar,
    Notice,
    OpenedSession,
    PermissionOption,
    PermissionOutcome,
    PermissionRequest,
    PromptBlock,
    PromptCapabilities,
    StoredSessionInfo,
    TerminalExit,
    TerminalOutput,
    TerminalRequest,
)
from webclient.acp.output import OutputWatch, initialize_answer
from webclient.acp.process import AgentProcess
from webclient.acp.translate import Translation, prompt_to_wire, tool_call_event, translate_update
from webclient.agent_config import McpServer
from webclient.errors import AgentRequestError, RequestRefused

AUTH_REQUIRED = -32000


class AgentListener(Protocol):
    """What the layer above gets told. Called on the event loop, in wire order."""

    def on_update(self, translation: Translation) -> None: ...

    def on_notice(self, notice: Notice) -> None: ...

    def on_wire(self, direction: str, message: dict[str, Any], version: int) -> None:
        """A message crossed the wire of a connection speaking ACP `version`."""

    def on_wire_note(self, text: str) -> None:
        """What webclient did about the connection (such as a protocol fallback), for the inspector."""

    async def request_permission(self, request: PermissionRequest) -> PermissionOutcome: ...

    async def read_text_file(
        self, session_id: str, path: str, line: int | None, limit: int | None
    ) -> str: ...

    async def write_text_file(self, session_id: str, path: str, content: str) -> None: ...

    async def create_terminal(self, request: TerminalRequest) -> str: ...

    def terminal_output(self, session_id: str, terminal_id: str) -> TerminalOutput: ...

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str) -> TerminalExit: ...

    def kill_terminal(self, session_id: str, terminal_id: str) -> None: ...

    def release_terminal(self, session_id: str, terminal_id: str) -> None: ...


class AgentConnection:
    """Spawn, initialize, talk to and stop one agent that speaks ACP v1."""

    protocol_version = PROTOCOL_VERSION

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
        self._router: Any = None
        self.info: AgentInfo | None = None
        self._output = OutputWatch(process, listener)

    async def start(self) -> AgentInfo:
        """Spawn the agent and complete `initialize`. Raises AgentError subclasses on failure."""
        from webclient.acp.transport import NdjsonTransport

        await self.process.start()
        proc = self.process.process
        assert proc.stdout is not None and proc.stdin is not None
        transport = NdjsonTransport(
            proc.stdout,
            proc.stdin,
            self._output.garbage,
            on_overflow=self._output.overflow,
            intercept=self._intercept,
        )
        self._router = build_client_router(_ClientRequests(self._listener))  # type: ignore[arg-type]
        self._conn = Connection(
            self._handle,
            transport,
            observers=[self._observe],  # type: ignore[arg-type]
        )
        result = await initialize_answer(
            self._request("initialize", self._initialize_params), self._initialize_timeout
        )
        self.info = _agent_info(result)
        return self.info

    # --- what we ask of the agent -----------------------------------------------------------------------

    async def authenticate(self, method_id: str) -> None:
        await self._request("authenticate", {"methodId": method_id})

    async def new_session(self, cwd: Path, mcp_servers: Sequence[McpServer] = ()) -> OpenedSession:
        """`session/new` with the MCP servers the agent should connect to."""
        params = {"cwd": str(cwd), "mcpServers": mcp_wire(mcp_servers)}
        result = await self._request("session/new", params)
        session_id = result.get("sessionId") if isinstance(result, dict) else None
        if not isinstance(session_id, str):
            raise AgentRequestError("session/new", -32603, "the agent's answer has no sessionId")
        return opened_session(session_id, result)

    async def load_session(
        self, session_id: str, cwd: Path, mcp_servers: Sequence[McpServer] = ()
    ) -> OpenedSession:
        """`session/load`: the agent replays the session's history as updates before it answers."""
        params = {"sessionId": session_id, "cwd": str(cwd), "mcpServers": mcp_wire(mcp_servers)}
        return opened_session(session_id, await self._request("session/load", params))

    async def resume_session(
        self, session_id: str, cwd: Path, mcp_servers: Sequence[McpServer] = ()
    ) -> OpenedSession:
        """`session/resume`: reconnect to a stored session without a replay."""
        params = {"sessionId": session_id, "cwd": str(cwd), "mcpServers": mcp_wire(mcp_servers)}
        return opened_session(session_id, await self._request("session/resume", params))

    async def list_sessions(self, cwd: Path) -> tuple[StoredSessionInfo, ...]:
        """`session/list`: the sessions the agent keeps for `cwd`; malformed entries are left out."""
        result = await self._request("session/list", {"cwd": str(cwd)})
        entries = result.get("sessions") if isinstance(result, dict) else None
        return tuple(info for raw in entries or () if (info := stored_session(raw)) is not None)

    async def close_session(self, session_id: str) -> None:
        await self._request("session/close", {"sessionId": session_id})

    async def delete_session(self, session_id: str) -> None:
        # ACP v1 has no way to delete a stored session; the page offers it only where v2 says it may.
        raise AgentRequestError("session/delete", -32601, "ACP v1 cannot delete sessions")

    async def prompt(self, session_id: str, blocks: Sequence[PromptBlock]) -> str:
        """Send `session/prompt` with these blocks (see `prompt_to_wire`); return the stop reason."""
        params = {"sessionId": session_id, "prompt": prompt_to_wire(blocks)}
        result = await self._request("session/prompt", params)
        reason = result.get("stopReason") if isinstance(result, dict) else None
        return reason if isinstance(reason, str) else "end_turn"

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
        if isinstance(result, dict) and isinstance(result.get("configOptions"), list):
            return config_options_from_wire(result["configOptions"])
        return None

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

    def _intercept(self, message: dict[str, Any]) -> bool:
        # `session/update` notifications are the stream: handled here, as each line is read, so they reach
        # the listener in wire order (the SDK would hand each to its own task, where order is not kept)
        # and without the SDK's per-message copy, task and tracing span.
        if message.get("method") != "session/update" or "id" in message:
            return False
        self._listener.on_wire("in", message, PROTOCOL_VERSION)
        self._listener.on_update(translate_update(message.get("params")))
        return True

    def _observe(self, event: StreamEvent) -> None:
        # Every other message, both ways, for the protocol log; observers run synchronously in the
        # receive loop, so the log keeps wire order.
        direction = "in" if event.direction is StreamDirection.INCOMING else "out"
        self._listener.on_wire(direction, event.message, PROTOCOL_VERSION)

    async def _handle(self, method: str, params: Any, is_notification: bool) -> Any:
        return await self._router(method, params, is_notification)


class _ClientRequests:
    """The requests an agent may send us, in the shape the SDK's client router calls them."""

    def __init__(self, listener: AgentListener) -> None:
        self._listener = listener

    async def request_permission(self, options: Any, session_id: str, tool_call: Any, **_: Any) -> Any:
        from acp.schema import RequestPermissionResponse

        request = PermissionRequest(
            session_id=session_id,
            tool_call=tool_call_event(tool_call, is_update=True),
            options=tuple(PermissionOption(id=o.option_id, name=o.name, kind=o.kind) for o in options),
        )
        outcome = await self._listener.request_permission(request)
        if outcome.option_id is None:
            return RequestPermissionResponse.model_validate({"outcome": {"outcome": "cancelled"}})
        selected = {"outcome": "selected", "optionId": outcome.option_id}
        return RequestPermissionResponse.model_validate({"outcome": selected})

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

    # --- terminal/* ---------------------------------------------------------------------------------------

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: list[Any] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **_: Any,
    ) -> Any:
        from acp.schema import CreateTerminalResponse

        request = TerminalRequest(
            session_id=session_id,
            command=command,
            args=tuple(args or ()),
            env=tuple((variable.name, variable.value) for variable in env or ()),
            cwd=cwd,
            output_byte_limit=output_byte_limit,
        )
        with _refusals_as_errors():
            terminal_id = await self._listener.create_terminal(request)
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(self, session_id: str, terminal_id: str, **_: Any) -> Any:
        from acp.schema import TerminalOutputResponse

        with _refusals_as_errors():
            output = self._listener.terminal_output(session_id, terminal_id)
        exit_status = _exit_status(output.exit) if output.exit is not None else None
        return TerminalOutputResponse(
            output=output.output, truncated=output.truncated, exit_status=exit_status
        )

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **_: Any) -> Any:
        from acp.schema import WaitForTerminalExitResponse

        with _refusals_as_errors():
            done = await self._listener.wait_for_terminal_exit(session_id, terminal_id)
        return WaitForTerminalExitResponse(exit_code=done.exit_code, signal=done.signal)

    async def kill_terminal(self, session_id: str, terminal_id: str, **_: Any) -> Any:
        from acp.schema import KillTerminalResponse

        with _refusals_as_errors():
            self._listener.kill_terminal(session_id, terminal_id)
        return KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str, **_: Any) -> Any:
        from acp.schema import ReleaseTerminalResponse

        with _refusals_as_errors():
            self._listener.release_terminal(session_id, terminal_id)
        return ReleaseTerminalResponse()


@contextlib.contextmanager
def _refusals_as_errors() -> Iterator[None]:
    """A request the listener refuses becomes the JSON-RPC error the agent receives."""
    try:
        yield
    except RequestRefused as exc:
        raise RequestError(exc.code, str(exc)) from None


def _exit_status(done: TerminalExit) -> Any:
    from acp.schema import TerminalExitStatus

    return TerminalExitStatus(exit_code=done.exit_code, signal=done.signal)


# --- translating answers -----------------------------------------------------------------------------


def _agent_info(result: Any) -> AgentInfo:
    if not isinstance(result, dict):
        raise AgentRequestError("initialize", -32603, "the agent's answer is not an object")
    info = _object(result.get("agentInfo"))
    methods = [
        auth_method(raw)
        for raw in result.get("authMethods") or []
        if isinstance(raw, dict) and isinstance(raw.get("id"), str)
    ]
    version = result.get("protocolVersion")
    return AgentInfo(
        protocol_version=version if isinstance(version, int) else 0,
        name=str(info.get("name") or "agent"),
        title=_text(info.get("title")),
        version=_text(info.get("version")),
        capabilities=agent_capabilities(_object(result.get("agentCapabilities"))),
        auth_methods=tuple(methods),
    )


def mcp_wire(servers: Sequence[McpServer]) -> list[dict[str, Any]]:
    """MCP servers as `McpServerStdio` objects, or `McpServerHttp` for those with a URL."""
    return [_mcp_server_wire(server) for server in servers]


def _mcp_server_wire(server: McpServer) -> dict[str, Any]:
    if server.url is not None:
        headers = [{"name": k, "value": v} for k, v in server.headers.items()]
        return {"type": "http", "name": server.name, "url": server.url, "headers": headers}
    return {
        "name": server.name,
        "command": server.command,
        "args": list(server.args),
        "env": [{"name": k, "value": v} for k, v in server.env.items()],
    }


def auth_method(raw: Mapping[str, Any]) -> AuthMethod:
    """One `authMethods` entry; no `type` (or one we do not know) means the agent signs in itself."""
    kind = raw.get("type")
    method_id, name, description = raw["id"], str(raw.get("name") or raw["id"]), _text(raw.get("description"))
    if kind == "env_var":
        variables = [
            AuthVar(
                name=v["name"],
                label=_text(v.get("label")),
                secret=v.get("secret") is not False,
                optional=v.get("optional") is True,
            )
            for v in raw.get("vars") or []
            if isinstance(v, dict) and isinstance(v.get("name"), str) and v["name"]
        ]
        return AuthMethod(
            id=method_id,
            name=name,
            description=description,
            kind="env_var",
            vars=tuple(variables),
            link=_text(raw.get("link")),
        )
    if kind == "terminal":
        args = tuple(a for a in raw.get("args") or [] if isinstance(a, str))
        env = tuple((k, v) for k, v in _object(raw.get("env")).items() if isinstance(v, str))
        return AuthMethod(
            id=method_id, name=name, description=description, kind="terminal", args=args, env=env
        )
    return AuthMethod(id=method_id, name=name, description=description)


def agent_capabilities(caps: Mapping[str, Any]) -> AgentCapabilities:
    """The v1 `agentCapabilities` object as our model.

    A capability counts when it is `true` or an object (`{}` means yes in the session capabilities and
    in v2): presence, not truthiness, so an empty object is never mistaken for "no".
    """
    prompt = _object(caps.get("promptCapabilities"))
    session = _object(caps.get("sessionCapabilities"))
    return AgentCapabilities(
        load_session=_granted(caps.get("loadSession")),
        list_sessions=isinstance(session.get("list"), dict),
        resume_session=isinstance(session.get("resume"), dict),
        close_session=isinstance(session.get("close"), dict),
        mcp_http=_object(caps.get("mcpCapabilities")).get("http") is True,
        prompt=PromptCapabilities(
            image=_granted(prompt.get("image")),
            audio=_granted(prompt.get("audio")),
            embedded_context=_granted(prompt.get("embeddedContext")),
        ),
    )


def opened_session(session_id: str, result: Any) -> OpenedSession:
    """A new, load or resume answer (a load or resume may answer null) as our model."""
    fields = _object(result)
    modes, current = modes_from_wire(fields.get("modes"))
    options = config_options_from_wire(fields.get("configOptions"))
    return OpenedSession(session_id=session_id, modes=modes, current_mode_id=current, config_options=options)


def stored_session(raw: Any) -> StoredSessionInfo | None:
    """One `session/list` entry (the same in v1 and v2); None when it is not one."""
    if not isinstance(raw, dict) or not isinstance(raw.get("sessionId"), str):
        return None
    return StoredSessionInfo(
        session_id=raw["sessionId"], title=_text(raw.get("title")), updated_at=_text(raw.get("updatedAt"))
    )


def _granted(value: Any) -> bool:
    return value is True or isinstance(value, dict)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
