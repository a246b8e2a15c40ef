"""The requests an ACP v1 agent makes of us, served through the SDK's client router.

Each becomes our model and goes to the `AgentListener`; its answer, or its refusal (`RequestRefused`),
goes back as the SDK's response model or as the JSON-RPC error the agent receives.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from acp.exceptions import RequestError

from webclient.acp.listener import AgentListener
from webclient.acp.models import PermissionOption, PermissionRequest, TerminalExit, TerminalRequest
from webclient.acp.v1.translate import tool_call_event
from webclient.errors import RequestRefused


class ClientRequests:
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
