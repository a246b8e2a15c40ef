"""One agent process through its whole life: spawn, initialize, sign-in, restart, exit.

The supervisor owns the `AgentLink` and its lifecycle task. It does not know sessions: it tells
its `SupervisorEvents` (the session registry's route for this agent) when the agent came up, changed
status, asks for a sign-in or went away, and lends the connection to whoever opens sessions on it.
Each configured agent has its own supervisor, started on first use.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from webclient.acp.answers import AUTH_REQUIRED
from webclient.acp.link import AgentLink
from webclient.acp.listener import AgentListener
from webclient.acp.models import AgentInfo, AgentStatus, AuthMethod, OpenedSession
from webclient.acp.negotiate import Negotiation
from webclient.agent_config import AgentSpec, env_problem, mcp_servers_for, remember_env
from webclient.aio import cancel_and_wait
from webclient.domain.agent_start import initialize_offer, new_endpoint
from webclient.domain.reasons import failure_text
from webclient.domain.reconnect import Reconnect
from webclient.domain.sign_in import SignIn, terminal_command
from webclient.domain.suggestions import SuggestionPolicy
from webclient.errors import AgentError, AgentRequestError, Refused, SettingsError
from webclient.settings import Settings


class SupervisorEvents(Protocol):
    """What the supervisor tells the layer that owns sessions."""

    def agent_status(self, status: AgentStatus) -> None: ...

    def agent_ready(self, agent: AgentLink, info: AgentInfo) -> None: ...

    async def agent_started(self) -> None: ...

    def agent_failed(self, error: AgentError) -> None: ...

    def sign_in_changed(self, sign_in: SignIn) -> None: ...

    def connection_lost(self, error: AgentError) -> None:
        """A remote agent's connection ended; the supervisor connects again."""

    async def agent_reconnected(self, agent: AgentLink, info: AgentInfo) -> None:
        """A new connection to the remote agent answered `initialize`: its sessions go on in it."""


class AgentSupervisor:
    """Starts one agent, keeps it signed in, and restarts it on request."""

    def __init__(
        self, settings: Settings, spec: AgentSpec, listener: AgentListener, events: SupervisorEvents
    ) -> None:
        self.settings = settings
        self.spec = spec
        self._listener = listener
        self._events = events
        self.status = AgentStatus.STARTING
        self.agent: AgentLink | None = None
        self.policy = SuggestionPolicy(advertised=False)
        self.sign_in = SignIn()
        # Values given in an env_var sign-in: kept in memory for every later start of this agent.
        self.sign_in_env: dict[str, str] = {}
        self._env_method: str | None = None  # the env_var method those values were given for
        self._lifecycle: asyncio.Task[None] | None = None
        self._reconnect_tries: Reconnect | None = None  # while a remote agent is being reached again
        self._auth_choice: asyncio.Future[str] | None = None
        # Kept across restarts: an agent that answered v1 once is started with v1 from then on.
        self._negotiation = Negotiation(
            lambda: new_endpoint(settings, spec, self.sign_in_env), listener, initialize_offer(settings, spec)
        )

    @property
    def info(self) -> AgentInfo | None:
        return self.agent.info if self.agent else None

    @property
    def session_cwd(self) -> Path:
        """The working directory the agent's sessions get: webclient's, or a remote agent's own."""
        return Path(self.spec.cwd) if self.spec.cwd else self.settings.cwd

    @property
    def started(self) -> bool:
        """Whether this agent was ever started (agents other than the first start on first use)."""
        return self._lifecycle is not None

    def start(self) -> None:
        self._lifecycle = asyncio.create_task(self._run(), name=f"agent-lifecycle-{self.spec.key}")

    async def stop(self) -> None:
        """End the lifecycle task and the agent process (its whole process group)."""
        if self._lifecycle is not None and not self._lifecycle.done():
            await cancel_and_wait(self._lifecycle)
        if self.agent is not None:
            await self.agent.stop()

    async def restart(self) -> None:
        """Stop the agent if it still runs and start a fresh one."""
        await self.stop()
        self.start()

    def reconnect_now(self) -> bool:
        """Cut the pause before the next try to reach a remote agent again; False if none is under way."""
        if self._reconnect_tries is None or self.status is not AgentStatus.RECONNECTING:
            return False
        self._reconnect_tries.now()
        return True

    def ready_agent(self) -> AgentLink:
        """The running, signed-in agent; Refused while it is starting, signing in or gone."""
        if self.agent is None or self.agent.info is None or self.status is not AgentStatus.READY:
            raise Refused(f"the agent is not ready ({self.status.value})")
        return self.agent

    async def new_session(self, agent: AgentLink) -> OpenedSession:
        """`session/new`, signing in first when the agent says it needs that."""
        assert agent.info is not None
        mcp = mcp_servers_for(self.settings.catalog.config.mcp_servers, http=agent.info.capabilities.mcp_http)
        try:
            return await agent.new_session(self.session_cwd, mcp)
        except AgentRequestError as exc:
            if exc.code != AUTH_REQUIRED or not agent.info.auth_methods:
                raise
        await self._sign_in(agent, agent.info)
        return await agent.new_session(self.session_cwd, mcp)

    # --- sign-in ----------------------------------------------------------------------------------------

    def choose_auth(self, method_id: str) -> None:
        """The user picked a sign-in method; Refused if nobody waits for one or it is not offered."""
        method = self._offered(method_id)
        if method.kind != "agent":
            raise Refused(f"{method.name!r} is not signed in with a button; follow its instructions")
        assert self._auth_choice is not None
        if self._auth_choice.done():  # a second click while the first is tried: the later one wins
            self._auth_choice = asyncio.get_running_loop().create_future()
        self._auth_choice.set_result(method_id)

    async def give_env(self, method_id: str, values: Mapping[str, str], *, remember: bool) -> None:
        """The user filled in an env_var method's variables: restart the agent with them set.

        They stay in memory only, unless `remember`: then they go into this agent's entry of the
        settings file (created with mode 0600). Refused when a required variable is empty.
        """
        method = self._offered(method_id)
        if self.spec.remote:
            raise Refused(f"{self.spec.name} runs on another machine: set its variables there")
        if method.kind != "env_var":
            raise Refused(f"{method.name!r} does not take environment variables")
        given = {v.name: values.get(v.name, "") for v in method.vars}
        missing = [v.label or v.name for v in method.vars if not v.optional and not given[v.name]]
        if missing:
            raise Refused(f"fill in {', '.join(missing)} to sign in")
        chosen = {name: value for name, value in given.items() if value}
        if (problem := env_problem(chosen, "the sign-in")) is not None:  # before it is used or saved
            raise Refused(problem)
        if remember:
            try:
                remember_env(self.settings.config_path, self.spec, chosen)
            except (OSError, SettingsError) as exc:
                raise Refused(f"could not write {self.settings.config_path}: {exc}") from None
        self.sign_in_env.update(chosen)
        self._env_method = method_id
        await self.restart()

    async def cancel_sign_in(self) -> None:
        """Stop waiting for a sign-in: the agent is stopped, and Restart starts it afresh."""
        if not self.sign_in.active:
            raise Refused("the agent is not waiting for a sign-in")
        await self.stop()
        self._set_sign_in(SignIn())
        self._set_status(AgentStatus.EXITED)
        self._events.agent_failed(
            AgentError("sign-in cancelled: the agent was stopped; Restart starts it again")
        )

    def _offered(self, method_id: str) -> AuthMethod:
        if self._auth_choice is None:
            raise Refused("the agent is not waiting for a sign-in")
        method = next((m for m in self.sign_in.methods if m.id == method_id), None)
        if method is None:
            raise Refused(f"unknown sign-in method {method_id!r}")
        return method

    async def _sign_in(self, agent: AgentLink, info: AgentInfo) -> None:
        """Sign in with one of the agent's methods, as often as it takes, until one works.

        One method is tried at once when it needs nobody (see `_automatic_method`). Otherwise, or when
        that fails, the user chooses, and may choose again while one is being tried.
        """
        methods = info.auth_methods
        automatic = self._automatic_method(methods, agent.process.env)
        self._auth_choice = asyncio.get_running_loop().create_future()
        if automatic is not None:
            self._auth_choice.set_result(automatic)
        message: str | None = None  # the agent's "auth required" is what the panel itself says
        self._set_status(AgentStatus.AUTH_REQUIRED)
        try:
            while True:
                self._set_sign_in(self._sign_in_view(methods, None, message))
                method_id = await self._until_exit(agent, self._auth_choice)
                self._auth_choice = asyncio.get_running_loop().create_future()
                self._set_sign_in(self._sign_in_view(methods, method_id, None))
                message = await self._authenticate(agent, method_id)
                if message is None:
                    return
        finally:
            self._auth_choice = None
            self._set_sign_in(SignIn())

    def _automatic_method(self, methods: tuple[AuthMethod, ...], env: Mapping[str, str]) -> str | None:
        """The method to try without asking: the env_var method whose values were just given, else one
        whose variables the agent already has (the user exported the key), else a lone `agent` method."""
        env_methods = [m for m in methods if m.kind == "env_var"]
        if self._env_method in {m.id for m in env_methods}:
            return self._env_method
        for method in env_methods:
            if all(env.get(v.name) for v in method.vars if not v.optional):
                return method.id
        if len(methods) == 1 and methods[0].kind == "agent":
            return methods[0].id
        return None

    async def _authenticate(self, agent: AgentLink, method_id: str) -> str | None:
        """`authenticate`; None when it worked, else what to tell the user. Another choice made while
        it runs stops waiting for this one (an agent may wait for a browser login that never comes)."""
        assert self._auth_choice is not None
        attempt = asyncio.ensure_future(agent.authenticate(method_id))
        try:
            await self._until_exit(agent, attempt, also=self._auth_choice)
        except AgentRequestError as exc:
            return failure_text("signing in failed", exc)
        finally:
            if not attempt.done():
                attempt.cancel()
        return None if attempt.done() and not attempt.cancelled() else "another sign-in method was chosen"

    async def _until_exit(
        self, agent: AgentLink, waited: asyncio.Future[Any], also: asyncio.Future[Any] | None = None
    ) -> Any:
        """The result of `waited`, unless the agent exits first (then that is raised) or `also` is done."""
        exited = asyncio.ensure_future(agent.wait_exit())
        try:
            either: set[asyncio.Future[Any]] = {waited, exited} | ({also} if also else set())
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            if waited.done():
                return waited.result()
            if also is not None and also.done():
                return None
            raise agent.process.exit_error(exited.result())
        finally:
            await cancel_and_wait(exited)

    def _sign_in_view(
        self, methods: tuple[AuthMethod, ...], pending: str | None, error: str | None
    ) -> SignIn:
        commands = tuple((m.id, terminal_command(self.spec, m)) for m in methods if m.kind == "terminal")
        return SignIn(methods=methods, pending=pending, error=error, commands=commands)

    def _set_sign_in(self, sign_in: SignIn) -> None:
        self.sign_in = sign_in
        self._events.sign_in_changed(sign_in)

    # --- the lifecycle ----------------------------------------------------------------------------------

    async def _run(self) -> None:
        self._set_status(AgentStatus.STARTING)
        self.agent = None
        try:
            agent = await self._negotiation.connect()
        except AgentError as exc:
            self._events.agent_failed(exc)
            await self._stop_starting()
            self._set_status(AgentStatus.EXITED)
            return
        except BaseException:  # cancelled (stopped or restarted) while starting
            await self._stop_starting()
            raise
        running: AgentLink | None = agent
        reconnected = False
        while running is not None and await self._bring_up(running, reconnected=reconnected):
            code = await running.wait_exit()
            ended = running.process.exit_error(code)
            await running.stop()
            if not running.process.remote:
                self._events.agent_failed(ended)
                self._set_status(AgentStatus.EXITED)
                return
            running, reconnected = await self._reconnect(ended), True

    async def _bring_up(self, agent: AgentLink, *, reconnected: bool) -> bool:
        """The agent answered `initialize`: its sessions open (or, after a reconnect, go on) in it."""
        self.agent = agent
        assert agent.info is not None
        try:
            self._negotiate()
            if reconnected:
                await self._events.agent_reconnected(agent, agent.info)
            else:
                self._events.agent_ready(agent, agent.info)
                await self._events.agent_started()
        except AgentError as exc:
            self._events.agent_failed(exc)
            await agent.stop()
            self._set_status(AgentStatus.EXITED)
            return False
        self._set_status(AgentStatus.READY)
        return True

    async def _reconnect(self, lost: AgentError) -> AgentLink | None:
        """Connect to the remote agent again (`Reconnect`) until it answers (the connection) or refuses
        for good (None: the agent counts as exited, and Restart tries again)."""
        self._events.connection_lost(lost)
        self._set_status(AgentStatus.RECONNECTING)
        self._reconnect_tries = Reconnect()
        try:
            return await self._reconnect_tries.until_connected(self._negotiation.connect, self._stop_starting)
        except AgentError as exc:
            await self._stop_starting()
            self._events.agent_failed(exc)
            self._set_status(AgentStatus.EXITED)
            return None
        finally:
            self._reconnect_tries = None

    async def _stop_starting(self) -> None:
        starting = self._negotiation.current
        if starting is not None:
            with contextlib.suppress(Exception):
                await starting.stop()

    def _negotiate(self) -> None:
        # The protocol layer checks each suggestion's block types against what both sides advertised;
        # the session only needs to know whether we advertised suggestions at all.
        self.policy = SuggestionPolicy(advertised=self.settings.prompt_suggestions)

    def _set_status(self, status: AgentStatus) -> None:
        self.status = status
        self._events.agent_status(status)
