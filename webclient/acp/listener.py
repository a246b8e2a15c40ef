"""What the protocol layer tells the layer above about one agent connection, in either ACP version."""

from __future__ import annotations

from typing import Any, Protocol

from webclient.acp.models import (
    Notice,
    PermissionOutcome,
    PermissionRequest,
    TerminalExit,
    TerminalOutput,
    TerminalRequest,
    Translation,
)


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
