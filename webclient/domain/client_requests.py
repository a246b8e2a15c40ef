"""The agent's requests of the client, each answered for the session it names: a permission request,
reading and writing a file (`fs/*`), running a command (`terminal/*`); and the `localTools` gate, which
keeps a remote agent off this machine's files and terminals unless the user allowed them.

`AgentRoute` answers them as its agent's listener; what is refused raises `RequestRefused`, the error
the agent is sent, and the session says what was declined and why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic

from webclient.acp.models import (
    NoticeLevel,
    PermissionOutcome,
    PermissionRequest,
    TerminalExit,
    TerminalOutput,
    TerminalRequest,
)
from webclient.agent_config import AgentSpec
from webclient.domain.changes import SinkT
from webclient.domain.files import FileAccessError, FileMissing
from webclient.domain.live_session import LiveSession
from webclient.domain.terminals import TerminalError
from webclient.errors import RequestRefused


class ClientRequests(Generic[SinkT]):
    """Answers one agent's requests of the client. `find` is the agent's session with an agent session
    id (None: not open here); `notify_all` tells every session of the agent."""

    def __init__(
        self,
        spec: AgentSpec,
        find: Callable[[str | None], LiveSession[SinkT] | None],
        notify_all: Callable[[NoticeLevel, str], None],
    ) -> None:
        self.spec = spec
        self._find = find
        self._notify_all = notify_all

    async def request_permission(self, request: PermissionRequest) -> PermissionOutcome:
        live = self._find(request.session_id)
        if live is None:  # fail closed: nobody can answer for a session we do not show
            self._notify_all(
                NoticeLevel.WARNING,
                f"declined a permission request for unknown session {request.session_id!r}",
            )
            return PermissionOutcome.cancelled()
        return await live.request_permission(request)

    async def read_text_file(self, session_id: str, path: str, line: int | None, limit: int | None) -> str:
        live = self._for_request(session_id)
        self._local_tools(live, f"read the local file {path!r}")
        try:
            return await live.fs.read(path, line, limit)
        except FileMissing as exc:
            raise RequestRefused(RequestRefused.RESOURCE_NOT_FOUND, str(exc)) from None
        except FileAccessError as exc:
            # Every FileAccessError begins with the path, so the notice names it once.
            live.notice(NoticeLevel.WARNING, f"refused the agent's request to read a file: {exc}")
            raise RequestRefused(RequestRefused.INVALID_PARAMS, str(exc)) from None

    async def write_text_file(self, session_id: str, path: str, content: str) -> None:
        live = self._for_request(session_id)
        self._local_tools(live, f"write the local file {path!r}")
        try:
            await live.fs.write(path, content)
        except FileAccessError as exc:
            live.notice(NoticeLevel.WARNING, f"refused the agent's request to write a file: {exc}")
            raise RequestRefused(RequestRefused.INVALID_PARAMS, str(exc)) from None

    async def create_terminal(self, request: TerminalRequest) -> str:
        live = self._for_request(request.session_id)
        self._local_tools(live, f"run {request.command!r} on this machine")
        try:
            return await live.terminals.create(request)
        except TerminalError as exc:
            live.notice(NoticeLevel.WARNING, str(exc))
            raise

    def terminal_output(self, session_id: str, terminal_id: str) -> TerminalOutput:
        return self._for_request(session_id).terminals.output(terminal_id)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str) -> TerminalExit:
        return await self._for_request(session_id).terminals.wait_for_exit(terminal_id)

    def kill_terminal(self, session_id: str, terminal_id: str) -> None:
        self._for_request(session_id).terminals.kill(terminal_id)

    def release_terminal(self, session_id: str, terminal_id: str) -> None:
        self._for_request(session_id).terminals.release(terminal_id)

    def _local_tools(self, live: LiveSession[SinkT], what: str) -> None:
        """A remote agent may use this machine's files and terminals only if the user allowed it."""
        if self.spec.remote and not self.spec.local_tools:
            live.notice(
                NoticeLevel.WARNING,
                f"declined the remote agent's request to {what}: it runs on another machine, and "
                '"localTools" is not on for it',
            )
            raise RequestRefused(
                RequestRefused.METHOD_NOT_FOUND,
                "this client offers no local files or terminals to remote agents",
            )

    def _for_request(self, session_id: str) -> LiveSession[SinkT]:
        live = self._find(session_id)
        if live is None:
            raise RequestRefused(RequestRefused.INVALID_PARAMS, f"unknown session {session_id!r}")
        return live
