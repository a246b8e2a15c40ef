"""The sessions one server shows: open, load, resume, close, look up, and route the agent's events.

The registry owns every `LiveSession` and, through one `AgentRoute` per configured agent, that agent's
`AgentSupervisor`. Each session talks to one agent; the route is that agent's connection listener, so
each update, request and notice goes to the session it names among that agent's sessions, and what
concerns the agent as a whole (its exit, a notice without a session) goes to every session it serves.
Agents other than the first start on first use; no session is the server's "current": each tab names its own.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Coroutine, Mapping
from typing import Any, Generic

from webclient.acp.models import (
    AgentStatus,
    Notice,
    NoticeLevel,
    StoredSessionInfo,
    Translation,
)
from webclient.acp.wire_log import WireLog
from webclient.agent_config import mcp_servers_for
from webclient.domain.changes import SinkFactory, SinkT
from webclient.domain.collector import COLLECTOR
from webclient.domain.files import FileAccess
from webclient.domain.kept.copies import Elsewhere, KeptCopies, listed
from webclient.domain.kept.keeper import TranscriptKeeper
from webclient.domain.kept.sessions import CopySessions
from webclient.domain.kept.store import TranscriptStore
from webclient.domain.live_session import LiveSession
from webclient.domain.protected import ProtectedPaths
from webclient.domain.reasons import error_detail, failure_text
from webclient.domain.route import AgentRoute
from webclient.domain.sidebar import AgentChoice, AgentOffer, SessionLink, build_sidebar
from webclient.domain.supervisor import AgentSupervisor
from webclient.errors import AgentError, Refused
from webclient.settings import Settings


class SessionRegistry(Generic[SinkT]):
    """The configured agents, any number of sessions with each, any number of viewers on each."""

    def __init__(
        self,
        settings: Settings,
        sink_factory: SinkFactory[SinkT],
        wire_logs: WireLog | Mapping[str, WireLog],
    ) -> None:
        """`wire_logs` keeps every message for the protocol inspector: one log per agent key (request
        ids and session ids are each agent's own), or one log for all."""
        self.settings = settings
        self.wire_logs = {"": wire_logs} if isinstance(wire_logs, WireLog) else dict(wire_logs)
        self.sessions: dict[str, LiveSession[SinkT]] = {}
        self.agents: dict[str, AgentRoute[SinkT]] = {
            spec.key: AgentRoute(self, settings, spec, self.wire_logs.get(spec.key) or self.wire_logs[""])
            for spec in settings.catalog.agents
        }
        self.default_agent = settings.catalog.default.key
        self._sink_factory = sink_factory
        self._ids = itertools.count(1)
        self._closing: set[str] = set()  # local ids of sessions waiting for the agent's session/close
        self._tasks: set[asyncio.Task[Any]] = set()
        # Each used session's transcript on disk (`keep_transcripts`), one keeper per live session.
        self.transcripts = TranscriptStore.for_settings(settings)
        self.transcripts.on_problem = self._not_kept  # said once on the page, with the real cause
        self.copies = KeptCopies(self.transcripts)  # what the sidebar offers of them, read only
        self.kept = CopySessions(self, self.copies)  # the sessions that show them
        self._keepers: dict[str, TranscriptKeeper] = {}
        self._add(self.agents[self.default_agent])  # a fresh server opens on one session

    @property
    def supervisor(self) -> AgentSupervisor:
        """The supervisor of the agent the server started with."""
        return self.agents[self.default_agent].supervisor

    @property
    def wire_log(self) -> WireLog:
        """The protocol log of the agent the server started with."""
        return self.agents[self.default_agent].wire_log

    @property
    def stored(self) -> tuple[StoredSessionInfo, ...]:
        return self.agents[self.default_agent].stored

    def route(self, live: LiveSession[SinkT]) -> AgentRoute[SinkT]:
        return self.agents[live.agent_key]

    def sessions_of(self, agent_key: str) -> list[LiveSession[SinkT]]:
        """The live sessions that talk to this agent, oldest first (a stored copy talks to none)."""
        return [s for s in self.live_sessions() if s.agent_key == agent_key]

    def _not_kept(self, said: str) -> None:
        for live in self.live_sessions():
            live.notice(NoticeLevel.ERROR, said)

    def live_sessions(self) -> list[LiveSession[SinkT]]:
        """The sessions but the stored copies shown read only, oldest first."""
        return [s for s in self.sessions.values() if s.state.kept is None]

    # --- the first agent's listener, for callers that know only one agent --------------------------------

    def on_update(self, translation: Translation) -> None:
        self.agents[self.default_agent].on_update(translation)

    # --- lifecycle --------------------------------------------------------------------------------------

    async def start(self) -> None:
        self.transcripts.start()
        for live in self.sessions.values():
            live.start()
        self.supervisor.start()
        self.spawn(self.kept.refresh())
        COLLECTOR.settle()  # what the server made to start is there for good: out of the collector's passes

    async def shutdown(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for live in list(self.sessions.values()):
            await live.close()
        for route in self.agents.values():
            await route.supervisor.stop()
        for keeper in self._keepers.values():
            keeper.close()
        await asyncio.to_thread(self.transcripts.close)  # what was queued is written first

    async def restart(self, agent_key: str | None = None) -> None:
        """A fresh process for one agent; each of its sessions continues in a new agent session, its
        transcript kept. A remote agent being reconnected is tried again at once instead (its sessions
        still go on where they were)."""
        route = self.agents[agent_key or self.default_agent]
        if route.supervisor.reconnect_now():
            return
        restarting = Notice(
            level=NoticeLevel.INFO, text="restarting the agent; each conversation continues in a new session"
        )
        for live in route.sessions():  # on the failure's card when there is one
            live.show_notice(restarting, failure=True)
        await route.supervisor.restart()

    # --- looking sessions up ----------------------------------------------------------------------------

    def session(self, local_id: str) -> LiveSession[SinkT] | None:
        return self.sessions.get(local_id)

    def most_recent(self) -> LiveSession[SinkT]:
        """The session opened last and not being closed: where a plain visit goes.

        A tab on a session being closed is sent here while the agent is still answering `session/close`;
        it must not land on that session again. Only when every session is closing is one of them chosen.
        """
        live = self.live_sessions()
        staying = [s for s in live if s.local_id not in self._closing]
        return (staying or live)[-1]

    def by_agent_id(self, session_id: str | None) -> LiveSession[SinkT] | None:
        """The first agent's session with this id."""
        return self.agents[self.default_agent].by_agent_id(session_id)

    # --- opening and closing ----------------------------------------------------------------------------

    def new_session(self, agent_key: str | None = None) -> LiveSession[SinkT]:
        """Open another session beside the others with one of the configured agents (the first one by
        default). Its agent starts now if this is its first use; `session/new` runs in the background."""
        route = self.agents.get(agent_key or self.default_agent)
        if route is None:
            raise Refused(f"no agent {agent_key!r} is configured")
        supervisor = route.supervisor
        if supervisor.started and supervisor.status is AgentStatus.EXITED:
            raise Refused(f"{route.spec.name} is not running; restart it first")
        live = self._add(route)
        live.start()
        if not supervisor.started:
            supervisor.start()  # its agent_started opens this session
        elif supervisor.status is AgentStatus.READY:
            self.spawn(self._open_in_background(route, live))
        # Starting or signing in: agent_started opens every session of this agent that waits.
        return live

    async def open_stored(
        self, session_id: str, *, resume: bool = False, agent_key: str | None = None
    ) -> LiveSession[SinkT]:
        """Open a session the agent keeps: `session/load` replays its history; `session/resume`
        reconnects without a replay. Either way it starts with no suggestions, and none that arrive
        before the agent's answer are offered (they belong to the replay, or to the time before)."""
        route = self.agents.get(agent_key or self.default_agent)
        if route is None:
            raise Refused(f"no agent {agent_key!r} is configured")
        agent = route.supervisor.ready_agent()
        if already := route.by_agent_id(session_id):
            return already
        caps = route.capabilities()
        if not (caps.resume_session if resume else caps.load_session):
            raise Refused(f"the agent does not support {'resuming' if resume else 'loading'} sessions")
        live = self._add(route)
        live.start()
        live.reopen(session_id, route.stored_title(session_id))
        live.begin_replay()
        request = agent.resume_session if resume else agent.load_session
        mcp = mcp_servers_for(self.settings.catalog.config.mcp_servers, http=caps.mcp_http)
        try:
            await route.open(live, request(session_id, route.supervisor.session_cwd, mcp))
        except AgentError as exc:
            await self.drop(live)
            what = f"could not open session {session_id!r}"
            raise Refused(failure_text(what, exc), error_detail(exc)) from None
        finally:
            live.end_replay()
        return live

    async def close(self, local_id: str) -> None:
        """Close a live session (`session/close` where the agent supports it) and forget it here."""
        live = self.sessions.get(local_id)
        if live is None:
            raise Refused("no such session")
        route = self.route(live)
        agent, session_id = route.supervisor.agent, live.state.session_id
        self._closing.add(local_id)
        try:
            if agent is not None and session_id and route.capabilities().close_session:
                try:
                    await agent.close_session(session_id)
                except AgentError as exc:
                    text = failure_text("the agent did not close the session", exc)
                    route.notify_all(NoticeLevel.WARNING, text, error_detail(exc))
            await self.drop(live)
            if session_id:
                route.closed(session_id)
        finally:
            self._closing.discard(local_id)
        if not self.live_sessions():  # there is always a session to show, even when its agent is not running
            try:
                self.new_session(route.key)
            except Refused:
                self._add(route).start()
        self.spawn(route.refresh_stored())

    async def delete_stored(self, session_id: str, agent_key: str) -> None:
        """Delete a session the agent keeps (ACP v2's `session/delete`); Refused where that cannot be."""
        route = self.agents.get(agent_key)
        if route is None:
            raise Refused(f"no agent {agent_key!r} is configured")
        agent = route.supervisor.ready_agent()
        if not route.capabilities().delete_session:
            raise Refused("the agent does not delete stored sessions")
        if route.by_agent_id(session_id) is not None:
            raise Refused("that session is open here: close it first, then delete it")
        try:
            await agent.delete_session(session_id)
        except AgentError as exc:
            what = "the agent did not delete the session"
            raise Refused(failure_text(what, exc), error_detail(exc)) from None
        await route.refresh_stored()

    async def refresh_stored(self) -> None:
        """Ask every running agent for the sessions it keeps (`session/list`), for the sidebar."""
        for route in self.agents.values():
            await route.refresh_stored()

    def _add(self, route: AgentRoute[SinkT]) -> LiveSession[SinkT]:
        supervisor = route.supervisor
        files = FileAccess([self.settings.cwd])
        live = LiveSession(
            f"s{next(self._ids)}",
            self._sink_factory,
            supervisor.policy,
            files,
            route.key,
            agent_label=route.spec.name,
            protected=ProtectedPaths(self.settings.cwd, self.settings.protected),
            cancel_grace=self.settings.cancel_grace,
        )
        live.terminals.secrets = (self.settings.token,)  # no command it runs gets the token
        live.on_status = self.refresh_sidebars  # the sidebar of every session shows this one's state
        live.turn_ended = lambda: self._turn_ended(route)
        live.note_wire = lambda text: route.session_note(live, text)
        live.meet_agent(supervisor.agent, supervisor.info, supervisor.policy)
        live.set_agent_status(supervisor.status)
        live.set_sign_in(supervisor.sign_in)
        route.introduce(live)
        if self.settings.keep_transcripts:
            keeper = self._keepers[live.local_id] = TranscriptKeeper(live.state, self.transcripts)
            live.observe(keeper.changed)
        self.sessions[live.local_id] = live
        self.refresh_sidebars()
        return live

    def _turn_ended(self, route: AgentRoute[SinkT]) -> None:
        COLLECTOR.settle()  # a quiet moment: the turn's objects leave the collector's passes
        self.spawn(route.refresh_stored())

    async def _open_in_background(self, route: AgentRoute[SinkT], live: LiveSession[SinkT]) -> None:
        try:
            agent = route.supervisor.ready_agent()
            await route.open(live, route.supervisor.new_session(agent))
        except (AgentError, Refused) as exc:
            live.drop_queued(str(exc))
            what = "the agent could not open a session"
            if isinstance(exc, AgentError):
                live.notice(NoticeLevel.ERROR, failure_text(what, exc), error_detail(exc))
            else:
                live.notice(NoticeLevel.ERROR, f"{what}: {exc}", exc.detail)
        self.spawn(route.refresh_stored())

    async def drop(self, live: LiveSession[SinkT]) -> None:
        """Close a session and forget it."""
        self.sessions.pop(live.local_id, None)
        await live.close()
        if keeper := self._keepers.pop(live.local_id, None):
            keeper.close()
            self.spawn(self.kept.refresh())  # its copy may be listed now
        self.refresh_sidebars()
        COLLECTOR.release()  # the closed session's cycles, frozen at its turns' ends, are collected

    def add_reader(self, agent_key: str, agent_label: str) -> LiveSession[SinkT]:
        """A new session no agent is attached to (a stored copy's), listed, not started yet."""
        route = self.agents.get(agent_key) or self.agents[self.default_agent]
        files = FileAccess([self.settings.cwd])
        live = LiveSession(
            f"s{next(self._ids)}", self._sink_factory, route.supervisor.policy, files, route.key,
            agent_label=agent_label,
        )  # fmt: skip
        self.sessions[live.local_id] = live
        return live

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        """Run `coroutine` as a task this registry owns (cancelled at shutdown)."""
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- what every session shows -----------------------------------------------------------------------

    def refresh_sidebars(self) -> None:
        agents = tuple(AgentChoice(key=r.key, name=r.spec.name) for r in self.agents.values())
        links = [
            SessionLink(
                local_id=s.local_id,
                title=s.state.display_title,
                status=s.state.session_status,
                current=False,
                agent=s.state.agent_label,
            )
            for s in self.live_sessions()
        ]
        offers = {
            key: AgentOffer(key, route.capabilities(), route.stored_elsewhere())
            for key, route in self.agents.items()
        }
        elsewhere = Elsewhere.of((k.key for k in self._keepers.values()), self.agents.values())
        for live in self.sessions.values():
            kept = listed(self.copies.summaries, elsewhere, live.state.kept.key if live.state.kept else None)
            live.set_sidebar(build_sidebar(live.local_id, links, offers[live.agent_key], agents, kept))
