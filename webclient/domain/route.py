"""One configured agent as the session registry sees it: the listener and supervisor events of its
connection, routing what the agent says to the session it names among this agent's sessions, and what
concerns the agent as a whole (its exit, a notice without a session) to every session it serves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic

from webclient.acp.link import AgentLink
from webclient.acp.models import (
    AgentCapabilities,
    AgentInfo,
    AgentStatus,
    Notice,
    NoticeLevel,
    PermissionOutcome,
    PermissionRequest,
    SessionInfoEvent,
    StoredSessionInfo,
    TerminalExit,
    TerminalOutput,
    TerminalRequest,
    Translation,
)
from webclient.acp.wire_log import WireEntry
from webclient.agent_config import AgentSpec
from webclient.domain.changes import SinkT
from webclient.domain.files import FileAccessError, FileMissing
from webclient.domain.live_session import LiveSession, error_detail
from webclient.domain.state import Aspect, SignIn
from webclient.domain.suggestions import SuggestionLedger
from webclient.domain.supervisor import AgentSupervisor
from webclient.domain.terminals import TerminalError
from webclient.errors import AgentError, AgentExitedError, RequestRefused, describe_exit

if TYPE_CHECKING:
    from webclient.domain.registry import SessionRegistry


class AgentRoute(Generic[SinkT]):
    """One configured agent as the registry sees it: its supervisor, its stored sessions, and the
    listener and supervisor events that route what it says to its own sessions only."""

    def __init__(self, registry: SessionRegistry[SinkT], spec: AgentSpec) -> None:
        self.registry = registry
        self.spec = spec
        self.wire_log = registry.wire_logs.get(spec.key) or registry.wire_logs[""]
        self.supervisor = AgentSupervisor(registry.settings, spec, listener=self, events=self)
        self.stored: tuple[StoredSessionInfo, ...] = ()
        self.opening = 0
        self.early_updates: list[Translation] = []

    @property
    def key(self) -> str:
        return self.spec.key

    def sessions(self) -> list[LiveSession[SinkT]]:
        return [s for s in self.registry.sessions.values() if s.agent_key == self.key]

    def by_agent_id(self, session_id: str | None) -> LiveSession[SinkT] | None:
        if session_id is None:
            return None
        return next((s for s in self.sessions() if s.state.session_id == session_id), None)

    def capabilities(self) -> AgentCapabilities:
        info = self.supervisor.info
        return info.capabilities if info else AgentCapabilities()

    def notify_all(self, level: NoticeLevel, text: str) -> None:
        for live in self.sessions():
            live.notice(level, text)

    # --- SupervisorEvents -------------------------------------------------------------------------------

    def agent_status(self, status: AgentStatus) -> None:
        for live in self.sessions():
            live.set_agent_status(status)
            if status is AgentStatus.EXITED:
                live.drop_queued("the agent is not running")
        self.registry.refresh_sidebars()

    def agent_ready(self, agent: AgentLink, info: AgentInfo) -> None:
        """A new agent process answered `initialize`: this agent's sessions now talk to it."""
        for live in self.sessions():
            live.agent = agent
            live.state.session_id = None  # the old process's sessions are gone with it
            live.terminals.release_all()  # a restart leaves nothing of the old agent's commands
            live.ledger = SuggestionLedger(self.supervisor.policy)
            self.registry.describe_agent(live, self, info)
        if info.protocol_version != agent.protocol_version:
            self.notify_all(
                NoticeLevel.WARNING,
                f"the agent answered ACP version {info.protocol_version} to a version "
                f"{agent.protocol_version} initialize; webclient goes on in version {agent.protocol_version}",
            )

    async def agent_started(self) -> None:
        """Open an agent session for every session of this agent that has none yet, including those
        added while the first ones were opening."""
        agent = self.supervisor.agent
        assert agent is not None  # called by the supervisor once its agent answered initialize
        done: set[str] = set()
        while waiting := [
            s for s in self.sessions() if s.state.session_id is None and s.local_id not in done
        ]:
            live = waiting[0]
            done.add(live.local_id)
            await self.registry.open_with(self, live, self.supervisor.new_session(agent))
        self.registry.spawn(self.refresh_stored())

    def agent_failed(self, error: AgentError) -> None:
        text = describe_exit(error.exit_code) if isinstance(error, AgentExitedError) else str(error)
        for live in self.sessions():
            live.cancel_permissions()
            live.terminals.release_all()  # the commands of an agent that is gone end with it
            live.notice(NoticeLevel.ERROR, text, error_detail(error))

    def sign_in_changed(self, sign_in: SignIn) -> None:
        for live in self.sessions():
            live.hub.mark(live.state.set_sign_in(sign_in))

    def stored_title(self, session_id: str) -> str | None:
        stored = next((s for s in self.stored if s.session_id == session_id), None)
        return stored.title if stored and stored.title and stored.title.strip() else None

    async def refresh_stored(self) -> None:
        """Ask the agent for the sessions it keeps (`session/list`), for the sidebar."""
        agent = self.supervisor.agent
        if agent is None or not self.capabilities().list_sessions:
            return
        try:
            self.stored = await agent.list_sessions(self.registry.settings.cwd)
        except AgentError as exc:
            self.notify_all(NoticeLevel.WARNING, f"could not list the agent's sessions: {exc}")
            return
        self.registry.refresh_sidebars()

    # --- AgentListener ----------------------------------------------------------------------------------

    def on_update(self, translation: Translation) -> None:
        live = self.by_agent_id(translation.session_id)
        if live is None:
            if self.opening and translation.session_id is not None:
                self.early_updates.append(translation)  # may belong to a session being opened
            elif translation.session_id is not None:
                self.notify_all(
                    NoticeLevel.WARNING, f"ignored an update for unknown session {translation.session_id!r}"
                )
            else:  # an unreadable session id: the translation is a notice saying so
                for event in translation.events:
                    for each in self.sessions():
                        each.apply(event)
            return
        for event in translation.events:
            live.apply(event)
            if isinstance(event, SessionInfoEvent):
                self.registry.refresh_sidebars()
                if self.capabilities().list_sessions:  # the agent's list shows the new title too
                    self.registry.spawn(self.refresh_stored())

    def on_notice(self, notice: Notice) -> None:
        for live in self.sessions():
            live.hub.mark(live.state.add_notice(notice))

    def on_wire(self, direction: str, message: dict[str, Any], version: int) -> None:
        self._logged(self.wire_log.record(direction, message, version=version))

    def on_wire_note(self, text: str) -> None:
        self._logged(self.wire_log.note(text))

    def _logged(self, entry: WireEntry) -> None:
        # Connection-scope messages show in every session; a session's own only in it. The answer to a
        # session/new names an id no session has yet: the sessions still opening render it once theirs is set.
        for live in self.sessions():
            if entry.session_id is None or live.state.session_id in (None, entry.session_id):
                live.hub.mark({Aspect.PROTOCOL_LOG})

    async def request_permission(self, request: PermissionRequest) -> PermissionOutcome:
        live = self.by_agent_id(request.session_id)
        if live is None:  # fail closed: nobody can answer for a session we do not show
            self.notify_all(
                NoticeLevel.WARNING,
                f"declined a permission request for unknown session {request.session_id!r}",
            )
            return PermissionOutcome.cancelled()
        return await live.request_permission(request)

    async def read_text_file(self, session_id: str, path: str, line: int | None, limit: int | None) -> str:
        live = self._for_request(session_id)
        try:
            return await live.read_text_file(path, line, limit)
        except FileMissing as exc:
            raise RequestRefused(RequestRefused.RESOURCE_NOT_FOUND, str(exc)) from None
        except FileAccessError as exc:
            # Every FileAccessError begins with the path, so the notice names it once.
            live.notice(NoticeLevel.WARNING, f"refused the agent's request to read a file: {exc}")
            raise RequestRefused(RequestRefused.INVALID_PARAMS, str(exc)) from None

    async def write_text_file(self, session_id: str, path: str, content: str) -> None:
        live = self._for_request(session_id)
        try:
            await live.write_text_file(path, content)
        except FileAccessError as exc:
            live.notice(NoticeLevel.WARNING, f"refused the agent's request to write a file: {exc}")
            raise RequestRefused(RequestRefused.INVALID_PARAMS, str(exc)) from None

    async def create_terminal(self, request: TerminalRequest) -> str:
        live = self._for_request(request.session_id)
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

    def _for_request(self, session_id: str) -> LiveSession[SinkT]:
        live = self.by_agent_id(session_id)
        if live is None:
            raise RequestRefused(RequestRefused.INVALID_PARAMS, f"unknown session {session_id!r}")
        return live
