"""One ACP v2 connection to one agent subprocess, over our own JSON-RPC peer.

The v2 twin of `webclient.acp.connection.AgentConnection`, with the same typed methods and the same
`AgentListener`, so everything above the protocol layer works unchanged. What v2 changes is absorbed
here:

- `session/prompt` answers `{}` when the agent accepts the prompt; the turn ends later, with a
  `state_update` `idle`. `prompt` therefore waits for that idle and returns its stop reason (see
  `_Turns` for which idle ends which prompt);
- `session/load` becomes `session/resume` with `replayFrom: {"type": "start"}`;
- `authenticate` is `auth/login`; config options carry a `type`; there are no modes;
- the client serves no `fs/*` or `terminal/*` (v2 has none): only `session/request_permission`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webclient.acp.connection import AgentListener, mcp_wire, stored_session
from webclient.acp.controls import ConfigOption
from webclient.acp.jsonrpc import METHOD_NOT_FOUND, JsonRpcPeer, PeerClosed, RpcError
from webclient.acp.models import (
    AgentCapabilities,
    AgentInfo,
    AuthMethod,
    MessageChunk,
    MessageUpsert,
    Notice,
    NoticeLevel,
    OpenedSession,
    PermissionOption,
    PermissionRequest,
    PromptBlock,
    PromptCapabilities,
    StateEvent,
    StoredSessionInfo,
    ToolCallEvent,
)
from webclient.acp.output import OutputWatch, initialize_answer
from webclient.acp.process import AgentProcess
from webclient.acp.translate import prompt_to_wire
from webclient.acp.transport import NdjsonTransport
from webclient.acp.v2.translate import V2Translator, config_options_v2, tool_call_patch
from webclient.agent_config import McpServer
from webclient.aio import cancel_and_wait
from webclient.errors import AgentError, AgentRequestError

PROTOCOL_VERSION = 2


class VersionMismatch(AgentError):
    """The agent answered our v2 `initialize` with another protocol version."""

    def __init__(self, answered: int | None) -> None:
        self.answered = answered
        super().__init__(f"the agent answered ACP version {answered} to an ACP v2 initialize")


class V2Connection:
    """Spawn, initialize, talk to and stop one agent that speaks ACP v2."""

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
        self._translator = V2Translator()
        self._turns: dict[str, _Turns] = {}
        self._peer: JsonRpcPeer | None = None
        self._reading: asyncio.Task[None] | None = None
        self.info: AgentInfo | None = None
        self._output = OutputWatch(process, listener)

    async def start(self) -> AgentInfo:
        """Spawn the agent and complete `initialize`. Raises `VersionMismatch` when it answers another
        version (the caller decides what then), other AgentError subclasses on failure."""
        await self.process.start()
        proc = self.process.process
        assert proc.stdout is not None and proc.stdin is not None
        transport = NdjsonTransport(
            proc.stdout, proc.stdin, self._output.garbage, on_overflow=self._output.overflow
        )
        self._peer = JsonRpcPeer(transport, self._serve, self._on_notification, self._observe)
        self._reading = asyncio.create_task(self._read(self._peer), name="acp-v2-reader")
        result = await initialize_answer(
            self._request("initialize", self._initialize_params), self._initialize_timeout
        )
        answered = result.get("protocolVersion") if isinstance(result, dict) else None
        if answered != PROTOCOL_VERSION:
            raise VersionMismatch(answered if isinstance(answered, int) else None)
        self.info = agent_info_v2(result)
        return self.info

    # --- what we ask of the agent -----------------------------------------------------------------------

    async def authenticate(self, method_id: str) -> None:
        await self._request("auth/login", {"methodId": method_id})

    async def logout(self) -> None:
        await self._request("auth/logout", {})

    async def new_session(self, cwd: Path, mcp_servers: Sequence[McpServer] = ()) -> OpenedSession:
        params = {"cwd": str(cwd), "mcpServers": mcp_wire_v2(mcp_servers)}
        result = await self._request("session/new", params)
        session_id = result.get("sessionId") if isinstance(result, dict) else None
        if not isinstance(session_id, str):
            raise AgentRequestError("session/new", -32603, "the agent's answer has no sessionId")
        return _opened(session_id, result)

    async def load_session(
        self, session_id: str, cwd: Path, mcp_servers: Sequence[McpServer] = ()
    ) -> OpenedSession:
        """`session/resume` with a replay from the start: the agent sends the whole history as updates,
        then answers (v1's `session/load`)."""
        params = self._resume_params(session_id, cwd, mcp_servers)
        params["replayFrom"] = {"type": "start"}
        return _opened(session_id, await self._request("session/resume", params))

    async def resume_session(
        self, session_id: str, cwd: Path, mcp_servers: Sequence[McpServer] = ()
    ) -> OpenedSession:
        """`session/resume` without a replay: reattach to the session as the agent keeps it."""
        params = self._resume_params(session_id, cwd, mcp_servers)
        return _opened(session_id, await self._request("session/resume", params))

    async def list_sessions(self, cwd: Path) -> tuple[StoredSessionInfo, ...]:
        result = await self._request("session/list", {"cwd": str(cwd)})
        entries = result.get("sessions") if isinstance(result, dict) else None
        return tuple(info for raw in entries or () if (info := stored_session(raw)) is not None)

    async def close_session(self, session_id: str) -> None:
        await self._request("session/close", {"sessionId": session_id})

    async def delete_session(self, session_id: str) -> None:
        await self._request("session/delete", {"sessionId": session_id})

    async def prompt(self, session_id: str, blocks: Sequence[PromptBlock]) -> str:
        """Send `session/prompt`; once the agent accepted it, wait for the `idle` that ends it and return
        its stop reason. A prompt the agent refuses raises AgentRequestError."""
        turns = self._turns.setdefault(session_id, _Turns())
        wait = turns.add()
        try:
            params = {"sessionId": session_id, "prompt": prompt_to_wire(blocks)}
            await self._request("session/prompt", params)
            wait.accepted = True
            try:
                return await wait.done
            except PeerClosed:
                raise await self._output.exited_error() from None
        finally:
            turns.remove(wait)

    async def cancel(self, session_id: str) -> None:
        """`session/cancel`; the prompt still waits, for the agent's `idle` with `cancelled`."""
        assert self._peer is not None
        self._turns.setdefault(session_id, _Turns()).cancelling = True
        try:
            await self._peer.notify("session/cancel", {"sessionId": session_id})
        except (ConnectionError, OSError):
            raise await self._output.exited_error() from None

    async def set_mode(self, session_id: str, mode_id: str) -> None:
        # v2 has no modes (a config option of category "mode" replaces them); the page offers none.
        raise AgentRequestError("session/set_mode", METHOD_NOT_FOUND, "ACP v2 has no session modes")

    async def set_config_option(
        self, session_id: str, config_id: str, value: str | bool
    ) -> tuple[ConfigOption, ...] | None:
        params = {
            "sessionId": session_id,
            "configId": config_id,
            "type": "boolean" if isinstance(value, bool) else "id",
            "value": value,
        }
        result = await self._request("session/set_config_option", params)
        if isinstance(result, dict) and isinstance(result.get("configOptions"), list):
            return config_options_v2(result["configOptions"])
        return None

    async def wait_exit(self) -> int:
        return await self.process.wait()

    async def stop(self) -> None:
        await self.process.stop()
        if self._peer is not None:
            with contextlib.suppress(Exception):
                await self._peer.aclose()
        if self._reading is not None:
            await cancel_and_wait(self._reading)

    # --- the wire ---------------------------------------------------------------------------------------

    async def _request(self, method: str, params: dict[str, Any]) -> Any:
        if self._peer is None:
            raise RuntimeError("agent connection not started")
        try:
            return await self._peer.request(method, params)
        except RpcError as exc:
            raise AgentRequestError(method, exc.code, exc.message, exc.data) from exc
        except (PeerClosed, ConnectionError, OSError):
            raise await self._output.exited_error() from None

    async def _read(self, peer: JsonRpcPeer) -> None:
        try:
            await peer.run()
        finally:
            for turns in self._turns.values():
                turns.fail(PeerClosed("the agent's output has ended"))

    def _on_notification(self, method: str, params: Any) -> None:
        if method != "session/update":
            if not method.startswith("_") and method != "elicitation/complete":
                self._listener.on_notice(
                    Notice(level=NoticeLevel.INFO, text=f"ignored the agent's notification {method!r}")
                )
            return
        translation = self._translator.translate(params)
        turns = self._turns.get(translation.session_id or "")
        if turns is not None:
            for event in translation.events:
                turns.observe(event)
        self._listener.on_update(translation)

    async def _serve(self, method: str, params: Any) -> Any:
        """The agent's requests: v2 leaves a client only permission requests (no fs, no terminals)."""
        if method != "session/request_permission":
            raise RpcError(METHOD_NOT_FOUND, f"method not found: {method}")
        request = permission_request_v2(params)
        if request is None:
            raise RpcError(-32602, "invalid session/request_permission params")
        outcome = await self._listener.request_permission(request)
        if outcome.option_id is None:
            return {"outcome": {"outcome": "cancelled"}}
        return {"outcome": {"outcome": "selected", "optionId": outcome.option_id}}

    def _observe(self, direction: str, message: dict[str, Any]) -> None:
        self._listener.on_wire(direction, message, PROTOCOL_VERSION)

    def _resume_params(self, session_id: str, cwd: Path, mcp_servers: Sequence[McpServer]) -> dict[str, Any]:
        return {"sessionId": session_id, "cwd": str(cwd), "mcpServers": mcp_wire_v2(mcp_servers)}


# --- which idle ends which prompt ------------------------------------------------------------------------


@dataclass(eq=False)
class _PromptWait:
    done: asyncio.Future[str]
    accepted: bool = False  # the agent answered `{}`
    started: bool = False  # the agent inserted its user message (or, failing that, began work after it)


@dataclass
class _Turns:
    """The prompts of one session that wait for their end.

    v2 updates name no prompt, so the end of each is inferred from the order the agent must follow: it
    inserts a prompt's user message when it accepts it, and reports `idle` when that work is done. A
    prompt counts as started at the first new user message after it was sent (oldest prompt first); an
    `idle` ends every started prompt. An `idle` that comes before (the session's earlier state) ends
    nothing. For an agent that never inserts user messages, a `running` after the acceptance starts it.
    """

    waits: list[_PromptWait] = field(default_factory=list)
    user_messages: set[str] = field(default_factory=set)
    inserts_user_messages: bool = False
    # Cancel was sent: the next `idle` ends every prompt, also those the agent queued and then dropped
    # without inserting them (they would otherwise wait for ever).
    cancelling: bool = False

    def add(self) -> _PromptWait:
        wait = _PromptWait(asyncio.get_running_loop().create_future())
        self.waits.append(wait)
        return wait

    def remove(self, wait: _PromptWait) -> None:
        with contextlib.suppress(ValueError):
            self.waits.remove(wait)

    def observe(self, event: object) -> None:
        if isinstance(event, MessageChunk | MessageUpsert) and event.role == "user":
            self._user_message(event.message_id)
        elif isinstance(event, StateEvent):
            self._state(event)

    def fail(self, error: Exception) -> None:
        for wait in self.waits:
            if not wait.done.done():
                wait.done.set_exception(error)

    def _user_message(self, message_id: str | None) -> None:
        if message_id is None or message_id in self.user_messages:
            return
        self.user_messages.add(message_id)
        self.inserts_user_messages = True
        waiting = next((w for w in self.waits if not w.started), None)
        if waiting is not None:
            waiting.started = True

    def _state(self, event: StateEvent) -> None:
        if event.state in ("running", "requires_action") and not self.inserts_user_messages:
            for wait in self.waits:
                if wait.accepted:
                    wait.started = True
        if event.state != "idle":
            return
        ending, self.cancelling = self.cancelling, False
        for wait in self.waits:
            if (wait.started or ending) and not wait.done.done():
                wait.done.set_result(event.stop_reason or ("cancelled" if ending else "end_turn"))


# --- translating answers -----------------------------------------------------------------------------


def agent_info_v2(result: dict[str, Any]) -> AgentInfo:
    """A v2 `initialize` result (`info`, `capabilities`, `authMethods[].methodId`) as our model."""
    info = _object(result.get("info"))
    methods = [
        auth_method_v2(raw)
        for raw in result.get("authMethods") or []
        if isinstance(raw, dict) and isinstance(raw.get("methodId"), str)
    ]
    return AgentInfo(
        protocol_version=PROTOCOL_VERSION,
        name=str(info.get("name") or "agent"),
        title=_text(info.get("title")),
        version=_text(info.get("version")),
        capabilities=agent_capabilities_v2(_object(result.get("capabilities"))),
        auth_methods=tuple(m for m in methods if m is not None),
    )


def agent_capabilities_v2(caps: Mapping[str, Any]) -> AgentCapabilities:
    """v2 capabilities: markers are objects (presence, never truthiness: `{}` means yes); a present
    `session` group means the baseline methods new, list, resume (with replay: our load) and close."""
    session = caps.get("session")
    if not isinstance(session, dict):
        return AgentCapabilities()
    prompt = _object(session.get("prompt"))
    return AgentCapabilities(
        load_session=True,
        list_sessions=True,
        resume_session=True,
        close_session=True,
        delete_session=isinstance(session.get("delete"), dict),
        mcp_http=isinstance(_object(session.get("mcp")).get("http"), dict),
        prompt=PromptCapabilities(
            image=isinstance(prompt.get("image"), dict),
            audio=isinstance(prompt.get("audio"), dict),
            embedded_context=isinstance(prompt.get("embeddedContext"), dict),
        ),
    )


def auth_method_v2(raw: Mapping[str, Any]) -> AuthMethod | None:
    """One v2 `authMethods` entry: `agent` (we call `auth/login`) or `terminal`; None for a type this
    client cannot use (it is listed nowhere rather than offered and failing)."""
    kind = raw.get("type")
    method_id = raw["methodId"]
    name = str(raw.get("name") or method_id)
    description = _text(raw.get("description"))
    if kind == "agent":
        return AuthMethod(id=method_id, name=name, description=description)
    if kind == "terminal":
        args = tuple(a for a in raw.get("args") or [] if isinstance(a, str))
        env = tuple((k, v) for k, v in _object(raw.get("env")).items() if isinstance(v, str))
        return AuthMethod(
            id=method_id, name=name, description=description, kind="terminal", args=args, env=env
        )
    return None


def permission_request_v2(params: Any) -> PermissionRequest | None:
    """A v2 `session/request_permission` (`title`, `description`, `subject`, `options`) as our model.

    A `tool_call` subject is a patch of that tool call, applied to its card; a `command` subject (or
    none, or one we do not know) only describes what the agent wants, under the request's own title.
    """
    if not isinstance(params, dict) or not isinstance(params.get("sessionId"), str):
        return None
    options = tuple(
        PermissionOption(
            id=o["optionId"], name=str(o.get("name") or o["optionId"]), kind=_text(o.get("kind"))
        )
        for o in params.get("options") or ()
        if isinstance(o, dict) and isinstance(o.get("optionId"), str)
    )
    if not options:
        return None
    question = _text(params.get("title")) or "The agent asks for permission"
    subject = _object(params.get("subject"))
    tool, updates_card = _permission_subject(subject)
    return PermissionRequest(
        session_id=params["sessionId"],
        tool_call=tool,
        options=options,
        question=question,
        description=_text(params.get("description")),
        updates_card=updates_card,
    )


def _permission_subject(subject: dict[str, Any]) -> tuple[ToolCallEvent, bool]:
    if subject.get("type") == "tool_call" and isinstance(subject.get("toolCall"), dict):
        with contextlib.suppress(ValueError, TypeError, KeyError):
            return tool_call_patch(subject["toolCall"]), True
    if subject.get("type") == "command" and isinstance(subject.get("command"), str):
        tool_call_id = _text(subject.get("toolCallId")) or "command"
        raw = {"command": subject["command"], "cwd": _text(subject.get("cwd"))}
        return ToolCallEvent(tool_call_id=tool_call_id, is_update=True, kind="execute", raw_input=raw), False
    return ToolCallEvent(tool_call_id="permission", is_update=True, raw_input=subject or None), False


def mcp_wire_v2(servers: Sequence[McpServer]) -> list[dict[str, Any]]:
    """MCP servers for v2: every entry carries its `type` (`stdio` or `http`)."""
    return [{"type": "stdio", **entry} if "type" not in entry else entry for entry in mcp_wire(servers)]


def _opened(session_id: str, result: Any) -> OpenedSession:
    options = config_options_v2(_object(result).get("configOptions"))
    return OpenedSession(session_id=session_id, config_options=options)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
