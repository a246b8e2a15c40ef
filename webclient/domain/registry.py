"""The sessions one server shows: open, load, resume, close, look up, and route the agent's events.

The registry owns every `LiveSession` and the `AgentSupervisor` of the agent they talk to. It is the
agent connection's listener: each update, request and notice goes to the session it names, and what
concerns the agent as a whole (its exit, a notice without a session) goes to every session it serves.
There is no server-wide "current" session: each tab names the session it shows.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Coroutine
from typing import Any, Generic

from webclient.acp.connection import AgentConnection
from webclient.acp.models import (
    AgentCapabilities,
    AgentInfo,
    AgentStatus,
    AuthMethod,
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
)
from webclient.acp.translate import Translation
from webclient.acp.wire_log import WireLog
from webclient.domain.changes import SinkFactory, SinkT
from webclient.domain.files import FileAccess, FileAccessError, FileMissing
from webclient.domain.live_session import LiveSession, error_detail
from webclient.domain.protected import ProtectedPaths
from webclient.domain.state import Aspect, SessionLink, Sidebar, StoredSession
from webclient.domain.suggestions import SuggestionLedger
from webclient.domain.supervisor import AgentSupervisor
from webclient.domain.terminals import TerminalError
from webclient.errors import AgentError, AgentExitedError, Refused, RequestRefused, describe_exit
from webclient.settings import Settings


class SessionRegistry(Generic[SinkT]):
    """One agent, any number of sessions, any number of viewers on each."""

    def __init__(self, settings: Settings, sink_factory: SinkFactory[SinkT], wire_log: WireLog) -> None:
        self.settings = settings
        self.wire_log = wire_log  # every message, routed by session, for the protocol inspector
        self.supervisor = AgentSupervisor(settings, listener=self, events=self)
        self.sessions: dict[str, LiveSession[SinkT]] = {}
        self.stored: tuple[StoredSessionInfo, ...] = ()
        self._sink_factory = sink_factory
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._opening = 0
        self._early_updates: list[Translation] = []
        self._add()  # a fresh server opens on one session

    # --- lifecycle --------------------------------------------------------------------------------------

    async def start(self) -> None:
        for live in self.sessions.values():
            live.start()
        self.supervisor.start()

    async def shutdown(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for live in list(self.sessions.values()):
            await live.close()
        await self.supervisor.stop()

    async def restart(self) -> None:
        """A fresh agent process; every session continues in a new agent session, its transcript kept."""
        self._notify_all(
            NoticeLevel.INFO, "restarting the agent; each conversation continues in a new session"
        )
        await self.supervisor.restart()

    # --- looking sessions up ----------------------------------------------------------------------------

    def session(self, local_id: str) -> LiveSession[SinkT] | None:
        return self.sessions.get(local_id)

    def most_recent(self) -> LiveSession[SinkT]:
        """The session opened last: where a plain visit goes."""
        return next(reversed(self.sessions.values()))

    def by_agent_id(self, session_id: str | None) -> LiveSession[SinkT] | None:
        if session_id is None:
            return None
        return next((s for s in self.sessions.values() if s.state.session_id == session_id), None)

    # --- opening and closing ----------------------------------------------------------------------------

    def new_session(self) -> LiveSession[SinkT]:
        """Open another session beside the others; the agent's `session/new` runs in the background."""
        agent = self.supervisor.ready_agent()
        live = self._add()
        live.start()
        self._spawn(self._create_in_background(live, agent))
        return live

    async def open_stored(self, session_id: str, *, resume: bool = False) -> LiveSession[SinkT]:
        """Open a session the agent keeps: `session/load` replays its history (suggestions in the replay
        are never offered, and it starts with none); `session/resume` reconnects without a replay."""
        agent = self.supervisor.ready_agent()
        if already := self.by_agent_id(session_id):
            return already
        caps = self._capabilities()
        if not (caps.resume_session if resume else caps.load_session):
            raise Refused(f"the agent does not support {'resuming' if resume else 'loading'} sessions")
        live = self._add()
        live.start()
        live.state.session_id = session_id
        live.state.title = self._stored_title(session_id)  # kept until the agent names it otherwise
        if not resume:
            live.begin_replay()
        request = agent.resume_session if resume else agent.load_session
        try:
            await self._open(live, request(session_id, self.settings.cwd))
        except AgentError as exc:
            await self._drop(live)
            raise Refused(f"could not open session {session_id!r}: {exc}") from None
        finally:
            if not resume:
                live.end_replay()
        return live

    async def close(self, local_id: str) -> None:
        """Close a live session (`session/close` where the agent supports it) and forget it here."""
        live = self.sessions.get(local_id)
        if live is None:
            raise Refused("no such session")
        agent, session_id = self.supervisor.agent, live.state.session_id
        if agent is not None and session_id and self._capabilities().close_session:
            try:
                await agent.close_session(session_id)
            except AgentError as exc:
                self._notify_all(NoticeLevel.WARNING, f"the agent did not close the session: {exc}")
        await self._drop(live)
        if not self.sessions:  # there is always a session to show
            fresh = self._add()
            fresh.start()
            if self.supervisor.status is AgentStatus.READY:
                self._spawn(self._create_in_background(fresh, self.supervisor.ready_agent()))
        self._spawn(self.refresh_stored())

    async def refresh_stored(self) -> None:
        """Ask the agent for the sessions it keeps (`session/list`), for the sidebar."""
        agent = self.supervisor.agent
        if agent is None or not self._capabilities().list_sessions:
            return
        try:
            self.stored = await agent.list_sessions(self.settings.cwd)
        except AgentError as exc:
            self._notify_all(NoticeLevel.WARNING, f"could not list the agent's sessions: {exc}")
            return
        self._refresh_sidebars()

    def _add(self) -> LiveSession[SinkT]:
        live = LiveSession(
            f"s{next(self._ids)}",
            self._sink_factory,
            self.supervisor.policy,
            FileAccess([self.settings.cwd]),
            protected=ProtectedPaths(self.settings.cwd, self.settings.protected),
            cancel_grace=self.settings.cancel_grace,
        )
        live.on_status = self._refresh_sidebars  # the sidebar of every session shows this one's state
        live.agent = self.supervisor.agent
        live.state.agent_status = self.supervisor.status
        if (info := self.supervisor.info) is not None:
            self._describe_agent(live, info)
        self.sessions[live.local_id] = live
        self._refresh_sidebars()
        return live

    async def _open(self, live: LiveSession[SinkT], request: Awaitable[OpenedSession]) -> None:
        """Run `session/new`, `load` or `resume` for `live`; updates that race its answer are kept."""
        self._opening += 1
        try:
            live.adopt(await request)
        finally:
            self._opening -= 1
            early, self._early_updates = self._early_updates, []
        for translation in early:
            self.on_update(translation)
        self._refresh_sidebars()

    async def _create_in_background(self, live: LiveSession[SinkT], agent: AgentConnection) -> None:
        """`session/new` for `live` (the request is made here, so a task cancelled early leaves none)."""
        try:
            await self._open(live, self.supervisor.new_session(agent))
        except AgentError as exc:
            live.notice(NoticeLevel.ERROR, f"the agent could not open a session: {exc}", error_detail(exc))
        self._spawn(self.refresh_stored())

    async def _drop(self, live: LiveSession[SinkT]) -> None:
        self.sessions.pop(live.local_id, None)
        await live.close()
        self._refresh_sidebars()

    def _spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- SupervisorEvents -------------------------------------------------------------------------------

    def agent_status(self, status: AgentStatus) -> None:
        for live in self.sessions.values():
            live.set_agent_status(status)
        self._refresh_sidebars()

    def agent_ready(self, agent: AgentConnection, info: AgentInfo) -> None:
        """A new agent process answered `initialize`: every session now talks to it."""
        for live in self.sessions.values():
            live.agent = agent
            live.terminals.release_all()  # a restart leaves nothing of the old agent's commands
            live.state.session_id = None  # the old process's sessions are gone with it
            live.ledger = SuggestionLedger(self.supervisor.policy)
            self._describe_agent(live, info)
        if info.protocol_version != 1:
            self._notify_all(
                NoticeLevel.WARNING,
                f"the agent speaks ACP version {info.protocol_version}; this client speaks version 1",
            )

    async def agent_started(self) -> None:
        """Open an agent session for every session shown here (one on a fresh start)."""
        agent = self.supervisor.agent
        assert agent is not None  # called by the supervisor once its agent answered initialize
        for live in list(self.sessions.values()):
            await self._open(live, self.supervisor.new_session(agent))
        self._spawn(self.refresh_stored())

    def agent_failed(self, error: AgentError) -> None:
        text = describe_exit(error.exit_code) if isinstance(error, AgentExitedError) else str(error)
        for live in self.sessions.values():
            live.cancel_permissions()
            live.terminals.release_all()  # the commands of an agent that is gone end with it
            live.notice(NoticeLevel.ERROR, text, error_detail(error))

    def sign_in_offered(self, methods: tuple[AuthMethod, ...]) -> None:
        for live in self.sessions.values():
            live.hub.mark(live.state.set_auth_methods(methods))

    def _describe_agent(self, live: LiveSession[SinkT], info: AgentInfo) -> None:
        live.state.agent_name = info.display_name + (f" {info.version}" if info.version else "")
        live.state.agent_id = info.name
        live.state.accepts_images = info.capabilities.prompt.image
        live.hub.mark({Aspect.DETAILS})

    # --- AgentListener ----------------------------------------------------------------------------------

    def on_update(self, translation: Translation) -> None:
        live = self.by_agent_id(translation.session_id)
        if live is None:
            if self._opening and translation.session_id is not None:
                self._early_updates.append(translation)  # may belong to a session being opened
            elif translation.session_id is not None:
                self._notify_all(
                    NoticeLevel.WARNING, f"ignored an update for unknown session {translation.session_id!r}"
                )
            else:  # an unreadable session id: the translation is a notice saying so
                for event in translation.events:
                    self._each(lambda s, e=event: s.apply(e))
            return
        for event in translation.events:
            live.apply(event)
            if isinstance(event, SessionInfoEvent):
                self._refresh_sidebars()
                if self._capabilities().list_sessions:  # the agent's list shows the new title too
                    self._spawn(self.refresh_stored())

    def on_notice(self, notice: Notice) -> None:
        self._each(lambda live: live.hub.mark(live.state.add_notice(notice)))

    def on_wire(self, direction: str, message: dict[str, Any]) -> None:
        entry = self.wire_log.record(direction, message)
        # Connection-scope messages show in every session; a session's own only in it. The answer to a
        # session/new names an id no session has yet: the sessions still opening render it once theirs is set.
        for live in self.sessions.values():
            if entry.session_id is None or live.state.session_id in (None, entry.session_id):
                live.hub.mark({Aspect.PROTOCOL_LOG})

    async def request_permission(self, request: PermissionRequest) -> PermissionOutcome:
        live = self.by_agent_id(request.session_id)
        if live is None:  # fail closed: nobody can answer for a session we do not show
            self._notify_all(
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

    # --- helpers ----------------------------------------------------------------------------------------

    def _capabilities(self) -> AgentCapabilities:
        info = self.supervisor.info
        return info.capabilities if info else AgentCapabilities()

    def _each(self, action: Any) -> None:
        for live in self.sessions.values():
            action(live)

    def _notify_all(self, level: NoticeLevel, text: str) -> None:
        self._each(lambda live: live.notice(level, text))

    def _stored_title(self, session_id: str) -> str | None:
        stored = next((s for s in self.stored if s.session_id == session_id), None)
        return stored.title if stored and stored.title and stored.title.strip() else None

    def _refresh_sidebars(self) -> None:
        # Each session once: one that is open here is listed under the open ones only.
        stored = tuple(
            StoredSession(session_id=s.session_id, title=s.title, updated_at=s.updated_at)
            for s in self.stored
            if self.by_agent_id(s.session_id) is None
        )
        caps = self._capabilities()
        for live in self.sessions.values():
            links = tuple(
                SessionLink(
                    local_id=other.local_id,
                    title=other.state.display_title,
                    status=other.state.session_status,
                    current=other is live,
                )
                for other in self.sessions.values()
            )
            sidebar = Sidebar(
                live=links,
                stored=stored,
                can_load=caps.load_session,
                can_resume=caps.resume_session,
                can_list=caps.list_sessions,
            )
            live.hub.mark(live.state.set_sidebar(sidebar))
