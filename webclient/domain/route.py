"""One configured agent as the session registry sees it: the listener and supervisor events of its
connection, routing what the agent says to the session it names among this agent's sessions, and what
concerns the agent as a whole (its exit, a notice without a session) to every session it serves.

The registry owns the routes; a route knows it only as a `RouteHost` (the modules do not import each other).
The agent's requests of the client (permission, files, terminals) are answered by `client_requests`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Coroutine
from typing import Any, Protocol

from webclient.acp.link import AgentLink
from webclient.acp.models import (
    AgentCapabilities,
    AgentInfo,
    AgentStatus,
    CommandsEvent,
    ConfigOptionsEvent,
    ModeEvent,
    Notice,
    NoticeLevel,
    OpenedSession,
    SessionInfoEvent,
    StoredSessionInfo,
    Translation,
    UsageEvent,
)
from webclient.acp.remote import shown_url
from webclient.acp.wire_log import WireEntry, WireLog
from webclient.agent_config import AgentSpec, mcp_servers_for
from webclient.domain.changes import SinkT
from webclient.domain.client_requests import ClientRequests
from webclient.domain.live_session import LiveSession
from webclient.domain.reasons import agent_reason, connecting_text, error_detail, failure_text
from webclient.domain.sidebar import StoredSession
from webclient.domain.sign_in import SignIn
from webclient.domain.supervisor import AgentSupervisor
from webclient.domain.unknown_sessions import UnknownSessions
from webclient.errors import AgentError, AgentExitedError, RemoteLost, describe_exit
from webclient.settings import Settings

# Updates kept for sessions still opening (v1 agents rarely send any before their answer).
MAX_EARLY_UPDATES = 64
# Sessions closed here whose ids are remembered, so that what the agent still sends of them says nothing.
MAX_CLOSED_REMEMBERED = 256
# What a session's replay may still change when the page already shows its conversation.
_SESSION_STATE = (CommandsEvent, ModeEvent, ConfigOptionsEvent, SessionInfoEvent, UsageEvent)


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


class AgentRoute(ClientRequests[SinkT]):
    """One configured agent as the registry sees it: its supervisor, its stored sessions, and the
    listener and supervisor events that route what it says to its own sessions only."""

    def __init__(
        self, host: RouteHost[SinkT], settings: Settings, spec: AgentSpec, wire_log: WireLog
    ) -> None:
        super().__init__(spec, self.by_agent_id, self.notify_all)
        self.host = host
        self.settings = settings
        self.wire_log = wire_log
        self.supervisor = AgentSupervisor(settings, spec, listener=self, events=self)
        self.stored: tuple[StoredSessionInfo, ...] = ()
        # `session/new`, load or resume requests awaiting their answer, and the updates that arrived
        # meanwhile for a session id no session has yet (it may be theirs).
        self._opening = 0
        self._early_updates: list[Translation] = []
        self._early_dropped = False
        # Sessions being loaded again after a lost connection: the agent's replay of what they already
        # show is not shown twice.
        self._reattaching: set[str] = set()
        # Sessions closed here, the latest last: the agent may still finish what it was saying in one
        # (its turn goes on after a v1 close), which is no news for the sessions open here.
        self._closed: dict[str, None] = {}
        self._unknown = UnknownSessions()  # what it sent for sessions not open here
        self._attempts, self._timeout = 0, settings.initialize_timeout  # a remote agent's starts: said

    @property
    def key(self) -> str:
        return self.spec.key

    def closed(self, session_id: str) -> None:
        """The session with this agent id was closed here: what the agent still sends of it is dropped."""
        self._closed[session_id] = None
        if len(self._closed) > MAX_CLOSED_REMEMBERED:
            del self._closed[next(iter(self._closed))]

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
        if status is AgentStatus.STARTING and self.spec.url is not None:  # say where, for how long
            self._attempts += 1
            self.notify_all(NoticeLevel.INFO, connecting_text(self.spec.url, self._timeout, self._attempts))
        for live in self.sessions():
            live.set_agent_status(status)
            if status is AgentStatus.EXITED:
                live.drop_queued("the agent is not running")
        self.host.refresh_sidebars()

    def agent_ready(self, agent: AgentLink, info: AgentInfo) -> None:
        """A new agent process answered `initialize`: this agent's sessions now talk to it."""
        back = Notice(level=NoticeLevel.INFO, text="the agent is running again")
        for live in self.sessions():
            live.meet_agent(agent, info, self.supervisor.policy)
            live.settle_failure(back)  # only a failure card says it
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
            self._early_dropped = False
        for translation in early:
            self.on_update(translation)
        self.host.refresh_sidebars()

    def introduce(self, live: LiveSession[SinkT]) -> None:
        """A new session of this agent: say where it runs, if elsewhere, and what it may do here."""
        if not self.spec.remote:
            return
        where = f"{self.spec.name} runs on another machine ({shown_url(self.spec.command_line)})"
        if self.spec.local_tools:
            live.notice(
                NoticeLevel.WARNING,
                f"{where}, and may read and write files here and run commands here (localTools is on)",
            )
        else:
            live.notice(
                NoticeLevel.INFO,
                f"{where}: it cannot read or write files here or run commands here; "
                '"localTools": true in its settings entry would allow that',
            )

    def connection_lost(self, error: AgentError) -> None:
        for live in self.sessions():
            live.cancel_permissions()
            live.terminals.release_all()
            live.notice(NoticeLevel.WARNING, f"{error}; reconnecting (what you type waits in the box)")

    async def agent_reconnected(self, agent: AgentLink, info: AgentInfo) -> None:
        """The agent answers again on a new connection: each session goes on where it was, by
        `session/resume` (no replay) or `session/load` (its replay is not shown again) when the agent
        offers one, else in a new session; then sessions opened meanwhile get theirs."""
        previous = {live.local_id: live.state.session_id for live in self.sessions()}
        self.agent_ready(agent, info)
        caps = info.capabilities
        mcp = mcp_servers_for(self.settings.catalog.config.mcp_servers, http=caps.mcp_http)
        for live in self.sessions():
            session_id = previous.get(live.local_id)
            if session_id is None:
                continue
            if caps.resume_session:
                request = agent.resume_session(session_id, self.supervisor.session_cwd, mcp)
            elif caps.load_session:
                request = agent.load_session(session_id, self.supervisor.session_cwd, mcp)
            else:
                live.notice(
                    NoticeLevel.INFO, "reconnected; the agent cannot resume sessions: a new one starts"
                )
                continue
            self._reattaching.add(session_id)
            try:
                await self.open(live, request)
                live.notice(NoticeLevel.INFO, "reconnected to the remote agent; the session goes on")
            except AgentError as exc:  # it goes on in a new session (agent_started, below)
                what = "reconnected, but the session could not be resumed"
                live.notice(NoticeLevel.WARNING, failure_text(what, exc), error_detail(exc))
            finally:
                self._reattaching.discard(session_id)
        await self.agent_started()

    def agent_failed(self, error: AgentError) -> None:
        if isinstance(error, AgentExitedError) and not isinstance(error, RemoteLost):
            text = describe_exit(error.exit_code)
        else:  # the agent's own words follow its error, when it gave any
            text = str(error) + (f": {reason}" if (reason := agent_reason(error)) else "")
        for live in self.sessions():
            live.cancel_permissions()
            live.terminals.release_all()  # the commands of an agent that is gone end with it
            live.notice(NoticeLevel.ERROR, text, error_detail(error), failure=True)

    def sign_in_changed(self, sign_in: SignIn) -> None:
        for live in self.sessions():
            live.set_sign_in(sign_in)

    def stored_title(self, session_id: str) -> str | None:
        stored = next((s for s in self.stored if s.session_id == session_id), None)
        return stored.title if stored and stored.title and stored.title.strip() else None

    def stored_elsewhere(self) -> tuple[StoredSession, ...]:
        """The sessions the agent keeps that are not open here, for the sidebar (an open one is listed
        under the open ones only)."""
        return tuple(
            StoredSession(session_id=s.session_id, title=s.title, updated_at=s.updated_at)
            for s in self.stored
            if self.by_agent_id(s.session_id) is None
        )

    async def refresh_stored(self) -> None:
        """Ask the agent for the sessions it keeps (`session/list`), for the sidebar."""
        agent = self.supervisor.agent
        if agent is None or not self.capabilities().list_sessions:
            return
        try:
            self.stored = await agent.list_sessions(self.supervisor.session_cwd)
        except AgentExitedError:
            return  # the agent went away (or its connection did): that is told once, on its own
        except AgentError as exc:
            text = failure_text("could not list the agent's sessions", exc)
            self.notify_all(NoticeLevel.WARNING, text, error_detail(exc))
            return
        self.host.refresh_sidebars()

    # --- AgentListener ----------------------------------------------------------------------------------

    def _keep_early(self, translation: Translation) -> None:
        """An update that may belong to a session being opened waits for its answer, up to a bound: an
        agent that floods updates before it answers (once 260 MiB in 8 s) loses the oldest, said once."""
        self._early_updates.append(translation)
        if len(self._early_updates) > MAX_EARLY_UPDATES:
            del self._early_updates[: len(self._early_updates) - MAX_EARLY_UPDATES]
            if not self._early_dropped:
                self.notify_all(
                    NoticeLevel.WARNING,
                    f"the agent sent more than {MAX_EARLY_UPDATES} updates before it answered the opening "
                    "of a session; the oldest were dropped",
                )
            self._early_dropped = True

    def on_update(self, translation: Translation) -> None:
        if translation.session_id in self._reattaching:
            # The replay of a session loaded again: the page shows its conversation already; what the
            # agent says of the session's state (commands, modes, title) still counts.
            kept = tuple(e for e in translation.events if isinstance(e, _SESSION_STATE))
            translation = Translation(translation.session_id, kept)
        live = self.by_agent_id(translation.session_id)
        if live is None:
            self._not_open(translation)
            return
        for event in translation.events:
            live.apply(event)
            if isinstance(event, SessionInfoEvent):
                self.host.refresh_sidebars()
                if self.capabilities().list_sessions:  # the agent's list shows the new title too
                    self.host.spawn(self.refresh_stored())

    def _not_open(self, translation: Translation) -> None:
        """An update for no session open here: one being opened may be its, else it is said once."""
        if translation.session_id in self._closed:
            return  # the end of what the agent was saying in a session closed here (in the inspector)
        if self._opening and translation.session_id is not None:
            self._keep_early(translation)
        elif translation.session_id is not None:
            self._unknown.said(translation.session_id, self.sessions())
        else:  # an unreadable session id: the translation is a notice saying so
            for event in translation.events:
                for each in self.sessions():
                    each.apply(event)

    def on_notice(self, notice: Notice) -> None:
        for live in self.sessions():
            live.show_notice(notice)

    def on_wire(self, direction: str, message: dict[str, Any], version: int) -> None:
        self._logged(self.wire_log.record(direction, message, version=version))

    def on_wire_note(self, text: str) -> None:
        self._logged(self.wire_log.note(text))

    def session_note(self, live: LiveSession[SinkT], text: str) -> None:
        """What webclient made of one session's messages, for its protocol inspector."""
        self._logged(self.wire_log.note(text, session_id=live.state.session_id))

    def _logged(self, entry: WireEntry) -> None:
        # Connection-scope messages show in every session; a session's own only in it. The answer to a
        # session/new names an id no session has yet: the sessions still opening render it once theirs is set.
        for live in self.sessions():
            if entry.session_id is None or live.state.session_id in (None, entry.session_id):
                live.protocol_logged()
