"""One agent process through its whole life: spawn, initialize, sign-in, restart, exit.

The supervisor owns the `AgentConnection` and its lifecycle task. It does not know sessions: it tells
its `SupervisorEvents` (the session registry) when the agent came up, changed status, asks for a sign-in
or went away, and lends the connection to whoever opens sessions on it.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Protocol

from webclient.acp.capabilities import SUGGESTION_CONTENT_TYPES, initialize_params
from webclient.acp.connection import AUTH_REQUIRED, AgentConnection, AgentListener
from webclient.acp.models import AgentInfo, AgentStatus, AuthMethod, OpenedSession
from webclient.acp.process import AgentProcess
from webclient.acp.suggestions import allowed_types
from webclient.domain.suggestions import SuggestionPolicy
from webclient.errors import AgentError, AgentExitedError, AgentRequestError, Refused
from webclient.settings import Settings


class SupervisorEvents(Protocol):
    """What the supervisor tells the layer that owns sessions."""

    def agent_status(self, status: AgentStatus) -> None: ...

    def agent_ready(self, agent: AgentConnection, info: AgentInfo) -> None: ...

    async def agent_started(self) -> None: ...

    def agent_failed(self, error: AgentError) -> None: ...

    def sign_in_offered(self, methods: tuple[AuthMethod, ...]) -> None: ...


class AgentSupervisor:
    """Starts the configured agent, keeps it signed in, and restarts it on request."""

    def __init__(self, settings: Settings, listener: AgentListener, events: SupervisorEvents) -> None:
        self.settings = settings
        self._listener = listener
        self._events = events
        self.status = AgentStatus.STARTING
        self.agent: AgentConnection | None = None
        self.policy = SuggestionPolicy(advertised=False, allowed=frozenset())
        self._lifecycle: asyncio.Task[None] | None = None
        self._auth_choice: asyncio.Future[str] | None = None
        self._auth_methods: tuple[AuthMethod, ...] = ()

    @property
    def info(self) -> AgentInfo | None:
        return self.agent.info if self.agent else None

    def start(self) -> None:
        self._lifecycle = asyncio.create_task(self._run(), name="agent-lifecycle")

    async def stop(self) -> None:
        """End the lifecycle task and the agent process (its whole process group)."""
        if self._lifecycle is not None and not self._lifecycle.done():
            self._lifecycle.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._lifecycle
        if self.agent is not None:
            await self.agent.stop()

    async def restart(self) -> None:
        """Stop the agent if it still runs and start a fresh one."""
        await self.stop()
        self.start()

    def ready_agent(self) -> AgentConnection:
        """The running, signed-in agent; Refused while it is starting, signing in or gone."""
        if self.agent is None or self.agent.info is None or self.status is not AgentStatus.READY:
            raise Refused(f"the agent is not ready ({self.status.value})")
        return self.agent

    async def new_session(self, agent: AgentConnection) -> OpenedSession:
        """`session/new`, signing in first when the agent says it needs that."""
        try:
            return await agent.new_session(self.settings.cwd)
        except AgentRequestError as exc:
            assert agent.info is not None
            if exc.code != AUTH_REQUIRED or not agent.info.auth_methods:
                raise
        await agent.authenticate(await self._choose_auth_method(agent, agent.info))
        return await agent.new_session(self.settings.cwd)

    def choose_auth(self, method_id: str) -> None:
        """The user picked a sign-in method; Refused if nobody waits for one or it is not offered."""
        if self._auth_choice is None or self._auth_choice.done():
            raise Refused("the agent is not waiting for a sign-in")
        if method_id not in {m.id for m in self._auth_methods}:
            raise Refused(f"unknown sign-in method {method_id!r}")
        self._auth_choice.set_result(method_id)

    # --- the lifecycle ----------------------------------------------------------------------------------

    async def _run(self) -> None:
        self._set_status(AgentStatus.STARTING)
        agent = self.agent = self._new_connection()
        try:
            info = await agent.start()
            self._negotiate(info)
            self._events.agent_ready(agent, info)
            await self._events.agent_started()
        except AgentError as exc:
            self._events.agent_failed(exc)
            await agent.stop()
            self._set_status(AgentStatus.EXITED)
            return
        self._set_status(AgentStatus.READY)
        code = await agent.wait_exit()
        self._events.agent_failed(AgentExitedError(code, agent.process.stderr_tail()))
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
        return AgentConnection(process, self._listener, params, self.settings.initialize_timeout)

    def _negotiate(self, info: AgentInfo) -> None:
        offer = SUGGESTION_CONTENT_TYPES if self.settings.prompt_suggestions else None
        allowed = allowed_types(offer, info.capabilities.prompt)
        self.policy = SuggestionPolicy(self.settings.prompt_suggestions, allowed)

    async def _choose_auth_method(self, agent: AgentConnection, info: AgentInfo) -> str:
        if len(info.auth_methods) == 1:
            return info.auth_methods[0].id
        choice: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._auth_choice, self._auth_methods = choice, info.auth_methods
        self._events.sign_in_offered(info.auth_methods)
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
            self._auth_choice, self._auth_methods = None, ()
            self._events.sign_in_offered(())

    def _set_status(self, status: AgentStatus) -> None:
        self.status = status
        self._events.agent_status(status)
