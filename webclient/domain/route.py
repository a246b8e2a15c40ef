"""One configured agent as the session registry sees it: the listener and supervisor events of its
connection, routing what the agent says to the session it names among this agent's sessions, and what
concerns the agent as a whole (its exit, a notice without a session) to every session it serves.

The registry owns the routes; a route knows the registry only as a `RouteHost`, so the two modules do
not import each other.
"""

from __future__ import annotations

from collections.abc import Awaitable, Coroutine
from typing import Any, Generic, Protocol

from webclient.acp.link import AgentLink
from webclient.acp.models import (
    AgentCapabilities,
    AgentInfo,
    AgentStatus,
    Notice,
    NoticeLevel,
    OpenedSession,
    PermissionOutcome,
    PermissionRequest,
    SessionInfoEvent,
    StoredSessionInfo,
    TerminalExit,
    TerminalOutput,
    TerminalRequest,
    Translation,
)
from webclient.acp.wire_log import WireEntry, WireLog
from webclient.agent_config import AgentSpec
from webclient.domain.changes import SinkT
from webclient.domain.files import FileAccessError, FileMissing
from webclient.domain.live_session import LiveSession
from webclient.domain.reasons import agent_reason, error_detail, failure_text
from webclient.domain.sign_in import SignIn
from webclient.domain.state import Aspect
from webclient.domain.supervisor import AgentSupervisor
from webclient.domain.terminals import TerminalError
from webclient.errors import AgentError, AgentExitedError, RequestRefused, describe_exit
from webclient.settings import Settings


class RouteHost(Protocol[SinkT]):
    """What a route needs of whoever owns the sessions (the registry)."""

    def sessions_of(self, agent_key: str) -> list[LiveSession[SinkT]]:
        """The live sessions that talk to this agent, oldest first."""
        ...

    def refresh_sidebars(self) -> None:
        """A session's title, status or the stored list changed: every sidebar shows it again."""
        ...

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        """Run `coroutine` as a task the host owns (cancelled at shutdown)."""
        ...


class AgentRoute(Generic[SinkT]):
    """One configured agent as the registry sees it: its supervisor, its stored sessions, and the
    listener and supervisor events that route what it says to its own sessions only."""

    def __init__(
        self, host: RouteHost[SinkT], settings: Settings, spec: AgentSpec, wire_log: WireLog
    ) -> None:
        self.host = host
        self.settings = settings
        self.spec = spec
        self.wire_log = wire_log
        self.supervisor = AgentSupervisor(settings, spec, listener=self, events=self)
        self.stored: tuple[StoredSessionInfo, ...] = ()
        # `session/new`, load or resume requests awaiting their answer, and the updates that arrived
        # meanwhile for a session id no session has yet (it may be theirs).
        self._opening = 0
        self._early_updates: list[Translation] = []

    @property
    def key(self) -> str:
        return self.spec.key

    def sessions(self) -> list[LiveSession[SinkT]]:
        return self.host.sessions_of(self.key)

    def by_agent_id(self, session_id: str | None) -> LiveSession[SinkT] | None:
        if session_id is None:
            return None
        return next((s for s in self.sessions() if s.state.session_id == session_id), None)

    def capabilities(self) -> AgentCapabilities:
        info = self.supervisor.info
        return info.capabilities if info else AgentCapabilities()

    def notify_all(self, level: NoticeLevel, text: str, detail: str | None = None) -> None:
        for live in self.sessions():
            live.notice(level, text, detail)

    # --- SupervisorEvents -------------------------------------------------------------------------------

    def agent_status(self, status: AgentStatus) -> None:
        for live in self.sessions():
            live.set_agent_status(status)
            if status is AgentStatus.EXITED:
                live.drop_queued("the agent is not running")
        self.host.refresh_sidebars()

    def agent_ready(self, agent: AgentLink, info: AgentInfo) -> None:
        """A new agent process answered `initialize`: this agent's sessions now talk to it."""
        for live in self.sessions():
            live.meet_agent(agent, info, self.supervisor.policy)
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
            await self.open(live, self.supervisor.new_session(agent))
        self.host.spawn(self.refresh_stored())

    async def open(self, live: LiveSession[SinkT], request: Awaitable[OpenedSession]) -> None:
        """Run `session/new`, `load` or `resume` for `live`; updates that race its answer are kept."""
        self._opening += 1
        try:
            live.adopt(await request)
        finally:
            self._opening -= 1
            early, self._early_updates = self._early_updates, []
        for translation in early:
            self.on_update(translation)
        self.host.refresh_sidebars()

    def agent_failed(self, error: AgentError) -> None:
        if isinstance(error, AgentExitedError):
            text = describe_exit(error.exit_code)
        else:  # the agent's own words follow its error, when it gave any
            text = str(error) + (f": {reason}" if (reason := agent_reason(error)) else "")
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
            self.stored = await agent.list_sessions(self.settings.cwd)
        except AgentError as exc:
            text = failure_text("could not list the agent's sessions", exc)
            self.notify_all(NoticeLevel.WARNING, text, error_detail(exc))
            return
        self.host.refresh_sidebars()

    # --- AgentListener ----------------------------------------------------------------------------------

    def on_update(self, translation: Translation) -> None:
        live = self.by_agent_id(translation.session_id)
        if live is None:
            if self._opening and translation.session_id is not None:
                self._early_updates.append(translation)  # may belong to a session being opened
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
                self.host.refresh_sidebars()
                if self.capabilities().list_sessions:  # the agent's list shows the new title too
                    self.host.spawn(self.refresh_stored())

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
            return await live.fs.read(path, line, limit)
        except FileMissing as exc:
            raise RequestRefused(RequestRefused.RESOURCE_NOT_FOUND, str(exc)) from None
        except FileAccessError as exc:
            # Every FileAccessError begins with the path, so the notice names it once.
            live.notice(NoticeLevel.WARNING, f"refused the agent's request to read a file: {exc}")
            raise RequestRefused(RequestRefused.INVALID_PARAMS, str(exc)) from None

    async def write_text_file(self, session_id: str, path: str, content: str) -> None:
        live = self._for_request(session_id)
        try:
            await live.fs.write(path, content)
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
