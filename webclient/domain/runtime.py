"""Owns the agent process and its live sessions for the server's lifetime.

The runtime is the `AgentListener` of the agent layer: it starts and restarts the agent, signs in,
opens, loads, resumes and closes sessions, and routes each translated event to the `LiveSession` it
names. It owns every background task it starts and cancels them on shutdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections import deque
from collections.abc import Coroutine
from typing import Any, Generic

from webclient.acp.capabilities import SUGGESTION_CONTENT_TYPES, initialize_params
from webclient.acp.connection import AUTH_REQUIRED, AgentConnection, AgentInfo
from webclient.acp.models import AgentStatus, ContentPart, Notice, NoticeLevel, SessionInfoEvent
from webclient.acp.process import AgentProcess
from webclient.acp.translate import Translation
from webclient.acp.wire_log import WireLog
from webclient.domain.changes import SinkFactory, SinkT, pending_changes
from webclient.domain.files import FileAccess, FileAccessError, FileMissing
from webclient.domain.live_session import SUGGESTION_GRACE_SECONDS, LiveSession, error_detail
from webclient.domain.state import Aspect, SessionLink, Sidebar, StoredSession
from webclient.domain.suggestions import Suggestion, SuggestionLedger, SuggestionPolicy, allowed_types
from webclient.errors import AgentError, AgentExitedError, AgentRequestError, RequestRefused, describe_exit
from webclient.settings import Settings

__all__ = ["SUGGESTION_GRACE_SECONDS", "Runtime"]

WIRE_LOG_SIZE = 5000


class Runtime(Generic[SinkT]):
    """One agent, any number of sessions, any number of tabs on each."""

    def __init__(
        self,
        settings: Settings,
        sink_factory: SinkFactory[SinkT] = pending_changes,  # type: ignore[assignment]
        wire_log: WireLog | None = None,
    ) -> None:
        self.settings = settings
        self.wire_log: deque[tuple[str, dict[str, Any]]] = deque(maxlen=WIRE_LOG_SIZE)
        # Every message, routed by session, for the protocol inspector.
        self.inspector = wire_log if wire_log is not None else WireLog()
        self._sink_factory = sink_factory
        self.sessions: dict[str, LiveSession[SinkT]] = {}
        self.stored_sessions: tuple[dict[str, Any], ...] = ()
        self._ids = itertools.count(1)
        self._policy = SuggestionPolicy(advertised=False, allowed=frozenset())
        self._agent: AgentConnection | None = None
        self._status = AgentStatus.STARTING
        self._lifecycle: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._auth_choice: asyncio.Future[str] | None = None
        self._opening = 0
        self._early_updates: list[Translation] = []
        self.current_id = self._add_session().local_id

    # --- the session a plain visit opens (and what single-session callers use) ---------------------------

    @property
    def current(self) -> LiveSession[SinkT]:
        return self.sessions[self.current_id]

    @property
    def state(self) -> Any:
        return self.current.state

    @property
    def hub(self) -> Any:
        return self.current.hub

    @property
    def ledger(self) -> SuggestionLedger:
        return self.current.ledger

    @ledger.setter
    def ledger(self, value: SuggestionLedger) -> None:
        self.current.ledger = value

    def session(self, local_id: str) -> LiveSession[SinkT] | None:
        return self.sessions.get(local_id)

    def submit_prompt(
        self, parts: list[ContentPart], *, wire: list[dict[str, Any]] | None = None, auto_sent: bool = False
    ) -> str | None:
        return self.current.submit_prompt(parts, wire=wire, auto_sent=auto_sent)

    def submit_composed(self, text: str, attachments: list[str]) -> str | None:
        return self.current.submit_composed(text, attachments)

    def send_suggestion(self, generation: int, index: int, *, auto_sent: bool = False) -> str | None:
        return self.current.send_suggestion(generation, index, auto_sent=auto_sent)

    def find_suggestion(self, generation: int, index: int) -> Suggestion | str:
        return self.current.find_suggestion(generation, index)

    async def cancel(self) -> str | None:
        return await self.current.cancel()

    # --- lifecycle --------------------------------------------------------------------------------------

    async def start(self) -> None:
        for live in self.sessions.values():
            live.start()
        self._lifecycle = asyncio.create_task(self._run_agent(), name="agent-lifecycle")

    async def shutdown(self) -> None:
        tasks = [t for t in (self._lifecycle, *self._tasks) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for live in list(self.sessions.values()):
            await live.close()
        if self._agent is not None:
            await self._agent.stop()

    async def restart(self) -> None:
        """Stop the agent if it still runs and start a fresh one; the current session continues anew."""
        if self._lifecycle is not None and not self._lifecycle.done():
            self._lifecycle.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._lifecycle
        if self._agent is not None:
            await self._agent.stop()
        self.current.notice(
            NoticeLevel.INFO, "restarting the agent; the conversation continues in a new session"
        )
        self._lifecycle = asyncio.create_task(self._run_agent(), name="agent-lifecycle")

    async def _run_agent(self) -> None:
        self._set_status(AgentStatus.STARTING)
        for live in self.sessions.values():
            live.state.session_id = None
        agent = self._new_connection()
        self._agent = agent
        try:
            info = await agent.start()
            self._announce(info)
            await self._open(self.current, self._new_session_with_auth(agent, info))
        except AgentError as exc:
            self._report_failure(exc)
            await agent.stop()
            self._set_status(AgentStatus.EXITED)
            return
        finally:
            self.current.hub.mark(self.current.state.set_auth_methods(()))
        self._set_status(AgentStatus.READY)
        self._spawn(self.refresh_stored_sessions())
        code = await agent.wait_exit()
        for live in self.sessions.values():
            live.cancel_permissions()
        self._report_failure(AgentExitedError(code, agent.process.stderr_tail()))
        await agent.stop()
        self._set_status(AgentStatus.EXITED)

    def _new_connection(self) -> AgentConnection:
        process = AgentProcess(
            self.settings.agent_argv,
            self.settings.cwd,
            self.settings.stderr_tail_lines,
            extra_env=self.settings.agent_env,
        )
        params = initialize_params(
            prompt_suggestions=self.settings.prompt_suggestions, jetbrains_air=self.settings.jetbrains_air
        )
        return AgentConnection(process, self, params, self.settings.initialize_timeout)

    def _negotiate_suggestions(self, info: AgentInfo) -> None:
        offer = SUGGESTION_CONTENT_TYPES if self.settings.prompt_suggestions else None
        allowed = allowed_types(offer, info.prompt_capabilities)
        self._policy = SuggestionPolicy(self.settings.prompt_suggestions, allowed)
        for live in self.sessions.values():
            live.ledger = SuggestionLedger(self._policy)

    def _announce(self, info: AgentInfo) -> None:
        self._negotiate_suggestions(info)
        name = info.display_name + (f" {info.version}" if info.version else "")
        for live in self.sessions.values():
            live.agent = self._agent
            live.state.agent_name = name
            live.state.agent_id = info.name
            live.state.accepts_images = bool(info.prompt_capabilities.get("image"))
            live.hub.mark({Aspect.DETAILS})
        if info.protocol_version != 1:
            self.current.notice(
                NoticeLevel.WARNING,
                f"the agent speaks ACP version {info.protocol_version}; this client speaks version 1",
            )

    async def _open(
        self, live: LiveSession[SinkT], request: Coroutine[Any, Any, dict[str, Any]]
    ) -> dict[str, Any]:
        """Run `session/new`, `load` or `resume` for `live`; updates that race its answer are kept."""
        self._opening += 1
        try:
            result = await request
            live.adopt_session_result(result)
            # A session starts with an empty list: a restart must not keep offering the old session's.
            live.hub.mark(live.state.set_suggestions(()))
        finally:
            self._opening -= 1
            early, self._early_updates = self._early_updates, []
        for translation in early:
            self.on_update(translation)
        self._refresh_sidebars()
        return result

    async def _new_session_with_auth(self, agent: AgentConnection, info: AgentInfo) -> dict[str, Any]:
        try:
            result = await agent.new_session(self.settings.cwd)
        except AgentRequestError as exc:
            if exc.code != AUTH_REQUIRED or not info.auth_methods:
                raise
            method_id = await self._choose_auth_method(agent, info)
            await agent.authenticate(method_id)
            result = await agent.new_session(self.settings.cwd)
        self.current.state.session_id = result["sessionId"]
        return result

    async def _choose_auth_method(self, agent: AgentConnection, info: AgentInfo) -> str:
        if len(info.auth_methods) == 1:
            return info.auth_methods[0].id
        choice: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._auth_choice = choice
        self.current.hub.mark(self.current.state.set_auth_methods(info.auth_methods))
        self._set_status(AgentStatus.AUTH_REQUIRED)
        # Wait for the user, unless the agent dies first: then report that, not a sign-in nobody can finish.
        exited = asyncio.ensure_future(agent.wait_exit())
        try:
            either: set[asyncio.Future[Any]] = {choice, exited}
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            if not choice.done():
                raise AgentExitedError(exited.result(), agent.process.stderr_tail())
            return choice.result()
        finally:
            exited.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await exited
            self._auth_choice = None

    def choose_auth(self, method_id: str) -> str | None:
        """The user picked a sign-in method; returns an error message if that is not possible now."""
        if self._auth_choice is None or self._auth_choice.done():
            return "the agent is not waiting for a sign-in"
        if method_id not in {m.id for m in self.current.state.auth_methods}:
            return f"unknown sign-in method {method_id!r}"
        self._auth_choice.set_result(method_id)
        return None

    # --- sessions ---------------------------------------------------------------------------------------

    def _add_session(self) -> LiveSession[SinkT]:
        local_id = f"s{next(self._ids)}"
        live = LiveSession(local_id, self._sink_factory, self._policy, FileAccess([self.settings.cwd]))
        live.on_status = self._refresh_sidebars  # the sidebar of every session shows this one's state
        live.agent = self._agent
        live.state.agent_status = self._status
        if self.sessions:
            live.state.agent_name = self.current.state.agent_name
            live.state.agent_id = self.current.state.agent_id
            live.state.accepts_images = self.current.state.accepts_images
        self.sessions[local_id] = live
        return live

    def _ready_agent(self) -> AgentConnection | str:
        if self._agent is None or self._agent.info is None or self._status is not AgentStatus.READY:
            return f"the agent is not ready ({self._status.value})"
        return self._agent

    def new_session(self) -> LiveSession[SinkT] | str:
        """Open another session beside the others; it becomes the current one. Opens in the background."""
        agent = self._ready_agent()
        if isinstance(agent, str):
            return agent
        live = self._add_session()
        live.start()
        self.current_id = live.local_id
        self._spawn(self._open_in_background(live, "session/new", self._create(agent, live)))
        return live

    async def _create(self, agent: AgentConnection, live: LiveSession[SinkT]) -> dict[str, Any]:
        result = await agent.new_session(self.settings.cwd)
        live.state.session_id = result["sessionId"]
        return result

    async def load_session(self, session_id: str, *, resume: bool = False) -> str | None:
        """Open a stored session in a new live session that becomes the current one.

        `session/load` replays its history (suggestions in the replay are never offered, and it starts
        with none); `session/resume` (resume=True) reconnects without a replay. On failure the new live
        session is dropped and the error returned; the current one stays.
        """
        agent = self._ready_agent()
        if isinstance(agent, str):
            return agent
        assert agent.info is not None
        if already := self._by_session_id(session_id):
            self.current_id = already.local_id
            return None
        supported = self.agent_can_resume if resume else agent.info.capabilities.get("loadSession") is True
        if not supported:
            return f"the agent does not support {'resuming' if resume else 'loading'} sessions"
        live = self._add_session()
        live.start()
        live.state.session_id = session_id
        live.state.title = self._stored_title(session_id)  # kept until the agent names it otherwise
        method = "session/resume" if resume else "session/load"
        if not resume:
            live.begin_replay()
        params = {"sessionId": session_id, "cwd": str(self.settings.cwd), "mcpServers": []}
        try:
            await self._open(live, agent.request(method, params))
        except AgentError as exc:
            await self._drop(live)
            self.current.notice(
                NoticeLevel.ERROR, f"could not open session {session_id!r}: {exc}", error_detail(exc)
            )
            return str(exc)
        finally:
            if not resume:
                live.end_replay()
        self.current_id = live.local_id
        return None

    async def close_session(self, local_id: str) -> str | None:
        """Close a live session (`session/close` where the agent supports it) and forget it here."""
        live = self.sessions.get(local_id)
        if live is None:
            return "no such session"
        agent = self._agent
        if agent is not None and live.state.session_id and self.agent_can_close:
            with contextlib.suppress(AgentError):
                await agent.request("session/close", {"sessionId": live.state.session_id})
        await self._drop(live)
        if not self.sessions:
            self.current_id = self._add_session().local_id
            self.current.start()
            if not isinstance(ready := self._ready_agent(), str):
                self._spawn(
                    self._open_in_background(self.current, "session/new", self._create(ready, self.current))
                )
        elif self.current_id not in self.sessions:
            self.current_id = next(reversed(self.sessions))
        self._refresh_sidebars()
        self._spawn(self.refresh_stored_sessions())
        return None

    async def refresh_stored_sessions(self) -> None:
        """Ask the agent for the sessions it keeps (`session/list`), for the sidebar."""
        agent = self._agent
        if agent is None or not self.agent_can_list:
            return
        try:
            result = await agent.request("session/list", {"cwd": str(self.settings.cwd)})
        except AgentError as exc:
            self.current.notice(NoticeLevel.WARNING, f"could not list the agent's sessions: {exc}")
            return
        sessions = result.get("sessions") if isinstance(result, dict) else None
        self.stored_sessions = tuple(s for s in sessions or [] if isinstance(s, dict) and "sessionId" in s)
        self._refresh_sidebars()

    @property
    def agent_can_list(self) -> bool:
        return self._session_capability("list")

    @property
    def agent_can_resume(self) -> bool:
        return self._session_capability("resume")

    @property
    def agent_can_close(self) -> bool:
        return self._session_capability("close")

    def _session_capability(self, name: str) -> bool:
        info = self._agent.info if self._agent else None
        caps = info.capabilities.get("sessionCapabilities") if info else None
        return isinstance(caps, dict) and isinstance(caps.get(name), dict)

    async def _open_in_background(
        self, live: LiveSession[SinkT], method: str, request: Coroutine[Any, Any, dict[str, Any]]
    ) -> None:
        try:
            await self._open(live, request)
        except AgentError as exc:
            live.notice(NoticeLevel.ERROR, f"{method} failed: {exc}", error_detail(exc))
        self._spawn(self.refresh_stored_sessions())

    async def _drop(self, live: LiveSession[SinkT]) -> None:
        self.sessions.pop(live.local_id, None)
        await live.close()
        self._refresh_sidebars()

    def _by_session_id(self, session_id: str | None) -> LiveSession[SinkT] | None:
        if session_id is None:
            return None
        return next((s for s in self.sessions.values() if s.state.session_id == session_id), None)

    def _stored_title(self, session_id: str) -> str | None:
        stored = next((s for s in self.stored_sessions if s.get("sessionId") == session_id), None)
        title = stored.get("title") if stored else None
        return title if isinstance(title, str) and title.strip() else None

    def _refresh_sidebars(self) -> None:
        # Each session once: one that is open here is listed under the open ones only.
        stored = tuple(
            StoredSession(
                session_id=str(s["sessionId"]),
                title=s.get("title") if isinstance(s.get("title"), str) else None,
                updated_at=s.get("updatedAt") if isinstance(s.get("updatedAt"), str) else None,
                live_local_id=None,
            )
            for s in self.stored_sessions
            if self._by_session_id(str(s["sessionId"])) is None
        )
        info = self._agent.info if self._agent else None
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
                can_load=bool(info and info.capabilities.get("loadSession") is True),
                can_resume=self.agent_can_resume,
                can_list=self.agent_can_list,
            )
            live.hub.mark(live.state.set_sidebar(sidebar))

    def _spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- AgentListener ----------------------------------------------------------------------------------

    def on_update(self, translation: Translation) -> None:
        live = self._by_session_id(translation.session_id)
        if live is None:
            if self._opening and translation.session_id is not None:
                self._early_updates.append(translation)  # may belong to a session being opened
                return
            if translation.session_id is not None:
                self.current.notice(
                    NoticeLevel.WARNING, f"ignored an update for unknown session {translation.session_id!r}"
                )
                return
            live = self.current  # unreadable session id: the translation is a notice saying so
        for event in translation.events:
            live.apply(event)
            if isinstance(event, SessionInfoEvent):
                self._refresh_sidebars()
                if self.agent_can_list:  # the agent's list shows the new title too
                    self._spawn(self.refresh_stored_sessions())

    def on_notice(self, notice: Notice) -> None:
        self.current.hub.mark(self.current.state.add_notice(notice))

    def on_wire(self, direction: str, message: dict[str, Any]) -> None:
        self.wire_log.append((direction, message))
        entry = self.inspector.record(direction, message)
        # Connection-scope messages show in every session; a session's own only in it. The answer to a
        # session/new names an id no session has yet: the sessions still opening render it once theirs is set.
        for live in self.sessions.values():
            if entry.session_id is None or live.state.session_id in (None, entry.session_id):
                live.hub.mark({Aspect.PROTOCOL_LOG})

    async def request_permission(
        self, session_id: str, tool_call: dict[str, Any], options: list[dict[str, Any]]
    ) -> dict[str, Any]:
        live = self._by_session_id(session_id)
        if live is None:  # fail closed: nobody can answer for a session we do not show
            self.current.notice(
                NoticeLevel.WARNING, f"declined a permission request for unknown session {session_id!r}"
            )
            return {"outcome": "cancelled"}
        return await live.request_permission(tool_call, options)

    def read_text_file(self, session_id: str, path: str, line: int | None, limit: int | None) -> str:
        live = self._session_for_request(session_id)
        try:
            return live.read_text_file(path, line, limit)
        except FileMissing as exc:
            raise RequestRefused(RequestRefused.RESOURCE_NOT_FOUND, str(exc)) from None
        except FileAccessError as exc:
            self._refused(live, "read", path, exc)
            raise RequestRefused(RequestRefused.INVALID_PARAMS, str(exc)) from None

    def write_text_file(self, session_id: str, path: str, content: str) -> None:
        live = self._session_for_request(session_id)
        try:
            live.write_text_file(path, content)
        except FileAccessError as exc:
            self._refused(live, "write", path, exc)
            raise RequestRefused(RequestRefused.INVALID_PARAMS, str(exc)) from None

    def _session_for_request(self, session_id: str) -> LiveSession[SinkT]:
        live = self._by_session_id(session_id)
        if live is None:
            raise RequestRefused(RequestRefused.INVALID_PARAMS, f"unknown session {session_id!r}")
        return live

    @staticmethod
    def _refused(live: LiveSession[SinkT], verb: str, path: str, exc: Exception) -> None:
        live.notice(NoticeLevel.WARNING, f"refused the agent's request to {verb} {path}: {exc}")

    # --- helpers ----------------------------------------------------------------------------------------

    def _set_status(self, status: AgentStatus) -> None:
        self._status = status
        for live in self.sessions.values():
            live.set_agent_status(status)
        self._refresh_sidebars()

    def _report_failure(self, exc: AgentError) -> None:
        text = describe_exit(exc.exit_code) if isinstance(exc, AgentExitedError) else str(exc)
        for live in self.sessions.values():
            live.notice(NoticeLevel.ERROR, text, error_detail(exc))
