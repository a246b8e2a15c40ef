"""What the layers above see of an agent connection, whichever ACP version it speaks.

`AgentConnection` (v1, through the SDK) and `V2Connection` (v2, our own peer) both are an `AgentLink`;
`webclient.acp.negotiate` picks one per agent process.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from webclient.acp.controls import ConfigOption
from webclient.acp.endpoint import AgentEndpoint
from webclient.acp.models import AgentInfo, OpenedSession, PromptBlock, StoredSessionInfo
from webclient.agent_config import McpServer


class AgentLink(Protocol):
    """One running agent: typed requests in our models; errors are `webclient.errors.AgentError`s."""

    process: AgentEndpoint
    info: AgentInfo | None

    @property
    def protocol_version(self) -> int: ...

    async def start(self) -> AgentInfo: ...

    async def authenticate(self, method_id: str) -> None: ...

    async def new_session(self, cwd: Path, mcp_servers: Sequence[McpServer] = ()) -> OpenedSession: ...

    async def load_session(
        self, session_id: str, cwd: Path, mcp_servers: Sequence[McpServer] = ()
    ) -> OpenedSession: ...

    async def resume_session(
        self, session_id: str, cwd: Path, mcp_servers: Sequence[McpServer] = ()
    ) -> OpenedSession: ...

    async def list_sessions(self, cwd: Path) -> tuple[StoredSessionInfo, ...]: ...

    async def close_session(self, session_id: str) -> None: ...

    async def delete_session(self, session_id: str) -> None: ...

    async def prompt(self, session_id: str, blocks: Sequence[PromptBlock]) -> str:
        """Run one prompt to the end of its turn; the stop reason."""

    async def cancel(self, session_id: str) -> None: ...

    async def cancel_tool_call(self, session_id: str, tool_call_id: str) -> None:
        """ACP v2 `tool_call/cancel`: stop one tool call that advertises `capabilities.cancel`."""

    async def cancel_terminal(self, session_id: str, terminal_id: str) -> None:
        """ACP v2 `terminal/cancel`: stop one terminal's process that advertises `capabilities.cancel`."""

    async def set_mode(self, session_id: str, mode_id: str) -> None: ...

    async def set_config_option(
        self, session_id: str, config_id: str, value: str | bool
    ) -> tuple[ConfigOption, ...] | None: ...

    async def wait_exit(self) -> int: ...

    async def stop(self) -> None: ...
