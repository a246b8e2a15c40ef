"""One ACP v2 connection to one agent subprocess, over our own JSON-RPC peer.

The v2 twin of `webclient.acp.v1.connection.AgentConnection`, with the same typed methods and the same
`AgentListener`, so everything above the protocol layer works unchanged. What v2 changes is absorbed
here:

- `session/prompt` answers `{}` when the agent accepts the prompt; the turn ends later, with a
  `state_update` `idle`. `prompt` therefore waits for that idle and returns its stop reason (see
  `Turns` for which idle ends which prompt);
- `session/load` becomes `session/resume` with `replayFrom: {"type": "start"}`;
- `authenticate` is `auth/login`; config options carry a `type`; there are no modes;
- the client serves no `fs/*` or `terminal/*` (v2 has none): only `session/request_permission`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from webclient.acp.answers import answered_options, as_object, new_session_id, stored_sessions
from webclient.acp.content_blocks import prompt_to_wire
from webclient.acp.controls import ConfigOption
from webclient.acp.endpoint import AgentEndpoint
from webclient.acp.jsonrpc import METHOD_NOT_FOUND, JsonRpcPeer, PeerClosed, RpcError
from webclient.acp.listener import AgentListener
from webclient.acp.mcp_wire import mcp_wire
from webclient.acp.models import AgentInfo, Notice, NoticeLevel, OpenedSession, PromptBlock, StoredSessionInfo
from webclient.acp.output import OutputWatch, initialize_answer
from webclient.acp.suggestions import allowed_types, offered_types
from webclient.acp.v2.answers import agent_info_v2, opened_v2, permission_request_v2
from webclient.acp.v2.translate import V2Translator, config_options_v2
from webclient.acp.v2.turns import Turns
from webclient.agent_config import McpServer
from webclient.aio import cancel_and_wait
from webclient.errors import AgentError, AgentRequestError

PROTOCOL_VERSION = 2
V1_SHAPED_ANSWER = Notice(
    level=NoticeLevel.WARNING,
    text="the agent answered session/prompt as ACP v1 does (a stopReason, no messageId): it does not "
    "really speak ACP v2; start webclient with --protocol 1 for this agent",
)
ELICITATION_REFUSED = Notice(
    level=NoticeLevel.WARNING,
    text="the agent asked for input through a form (elicitation/create), which webclient does not offer; "
    "it was refused",
)


class VersionMismatch(AgentError):
    """The agent answered our v2 `initialize` with another protocol version, or with 2 but without what
    v2 requires (`info`): a v1 agent that echoes the version it is offered (`not_v2` says why)."""

    def __init__(self, answered: int | None, not_v2: str | None = None) -> None:
        self.answered = answered
        self.not_v2 = not_v2
        said = f"ACP version {answered}" + (f" {not_v2}" if not_v2 else "")
        super().__init__(f"the agent answered {said} to an ACP v2 initialize")


class V2Connection:
    """Spawn, initialize, talk to and stop one agent that speaks ACP v2."""

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
        self._translator = V2Translator()
        self._turns: dict[str, Turns] = {}
        self._peer: JsonRpcPeer | None = None
        self._reading: asyncio.Task[None] | None = None
        self.info: AgentInfo | None = None
        self._output = OutputWatch(process, listener)

    async def start(self) -> AgentInfo:
        """Spawn the agent and complete `initialize`. Raises `VersionMismatch` when it answers another
        version (the caller decides what then), other AgentError subclasses on failure."""
        await self.process.start()
        transport = self.process.channel(self._output.garbage, on_overflow=self._output.overflow)
        self._peer = JsonRpcPeer(transport, self._serve, self._on_notification, self._observe)
        self._reading = asyncio.create_task(self._read(self._peer), name="acp-v2-reader")
        result = await initialize_answer(
            self._request("initialize", self._initialize_params), self._initialize_timeout
        )
        answered = result.get("protocolVersion") if isinstance(result, dict) else None
        if answered != PROTOCOL_VERSION:
            raise VersionMismatch(answered if isinstance(answered, int) else None)
        if not isinstance(result.get("info"), dict):
            raise VersionMismatch(answered, "without the `info` that ACP v2 requires")
        self.info = agent_info_v2(result)
        session_caps = as_object(self._initialize_params.get("capabilities")).get("session")
        offer = offered_types(session_caps)
        self._translator.suggestion_types = allowed_types(offer, self.info.capabilities.prompt)
        return self.info

    # --- what we ask of the agent -----------------------------------------------------------------------

    async def authenticate(self, method_id: str) -> None:
        await self._request("auth/login", {"methodId": method_id})

    async def logout(self) -> None:
        await self._request("auth/logout", {})

    async def new_session(self, cwd: Path, mcp_servers: Sequence[McpServer] = ()) -> OpenedSession:
        params = {"cwd": str(cwd), "mcpServers": mcp_wire(mcp_servers, typed=True)}
        result = await self._request("session/new", params)
        return opened_v2(new_session_id(result), result)

    async def load_session(
        self, session_id: str, cwd: Path, mcp_servers: Sequence[McpServer] = ()
    ) -> OpenedSession:
        """`session/resume` with a replay from the start: the agent sends the whole history as updates,
        then answers (v1's `session/load`)."""
        params = self._resume_params(session_id, cwd, mcp_servers)
        params["replayFrom"] = {"type": "start"}
        return opened_v2(session_id, await self._request("session/resume", params))

    async def resume_session(
        self, session_id: str, cwd: Path, mcp_servers: Sequence[McpServer] = ()
    ) -> OpenedSession:
        """`session/resume` without a replay: reattach to the session as the agent keeps it."""
        params = self._resume_params(session_id, cwd, mcp_servers)
        return opened_v2(session_id, await self._request("session/resume", params))

    async def list_sessions(self, cwd: Path) -> tuple[StoredSessionInfo, ...]:
        return stored_sessions(await self._request("session/list", {"cwd": str(cwd)}))

    async def close_session(self, session_id: str) -> None:
        await self._request("session/close", {"sessionId": session_id})

    async def delete_session(self, session_id: str) -> None:
        await self._request("session/delete", {"sessionId": session_id})

    async def prompt(self, session_id: str, blocks: Sequence[PromptBlock]) -> str:
        """Send `session/prompt`; once the agent accepted it, wait for the `idle` that ends it and return
        its stop reason. A prompt the agent refuses raises AgentRequestError."""
        turns = self._turns.setdefault(session_id, Turns())
        wait = turns.add()
        try:
            params = {"sessionId": session_id, "prompt": prompt_to_wire(blocks)}
            answer = await self._request("session/prompt", params)
            if isinstance(answer, dict) and "stopReason" in answer and "messageId" not in answer:
                # v1's answer (the turn is over) from an agent taken for v2: no idle will ever come.
                self._listener.on_notice(V1_SHAPED_ANSWER)
                reason = answer["stopReason"]
                return reason if isinstance(reason, str) else "end_turn"
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
        self._turns.setdefault(session_id, Turns()).cancelling = True
        try:
            await self._peer.notify("session/cancel", {"sessionId": session_id})
        except (ConnectionError, OSError):
            raise await self._output.exited_error() from None

    async def cancel_tool_call(self, session_id: str, tool_call_id: str) -> None:
        """`tool_call/cancel`; the agent confirms with the tool call's final status."""
        await self._request("tool_call/cancel", {"sessionId": session_id, "toolCallId": tool_call_id})

    async def cancel_terminal(self, session_id: str, terminal_id: str) -> None:
        """`terminal/cancel`; the agent confirms with the terminal's `exitStatus`."""
        await self._request("terminal/cancel", {"sessionId": session_id, "terminalId": terminal_id})

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
        return answered_options(result, config_options_v2)

    async def wait_exit(self) -> int:
        return await self.process.wait()

    async def stop(self, grace: float = 2.0) -> None:
        """Stop the agent: `grace` is how long each step (stdin closed, SIGTERM) may take to end it."""
        await self.process.stop(grace)
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
        """The agent's requests: v2 leaves a client only permission requests (no fs, no terminals).
        Elicitation is refused: webclient does not advertise `elicitation`, so an agent must not ask."""
        if method == "elicitation/create":
            self._listener.on_notice(ELICITATION_REFUSED)
            raise RpcError(METHOD_NOT_FOUND, "webclient does not support elicitation (not advertised)")
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
        return {"sessionId": session_id, "cwd": str(cwd), "mcpServers": mcp_wire(mcp_servers, typed=True)}
