"""`SessionDriver`: the domain's session registry with real agents, driven as a tab drives it; and what the
tests read from and do with the session it drives (`turn`, `sent`, `answers`, `permission`)."""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from tests.support.polling import eventually
from webclient.acp.models import AgentStatus, ContentPart, TextPart, Translation
from webclient.acp.wire_log import WireLog
from webclient.domain.changes import PendingChanges
from webclient.domain.items import MessageItem, PermissionItem
from webclient.domain.registry import SessionRegistry
from webclient.domain.state import SessionState, TurnState
from webclient.domain.supervisor import AgentSupervisor
from webclient.settings import Settings


class SessionDriver:
    """A `SessionRegistry` with real agent subprocesses, and the session a test drives through it.

    The methods mirror what a tab asks for and behave as the domain does: where it refuses, `Refused`
    propagates, and a test that expects a refusal says so with `pytest.raises(Refused, match=...)`.
    """

    def __init__(self, settings: Settings) -> None:
        self.registry = SessionRegistry(settings, PendingChanges.factory, WireLog())
        self.current = self.registry.most_recent()
        self.own_session_only = False

    @property
    def wire_log(self) -> list[tuple[str, dict[str, Any]]]:
        """Every JSON-RPC message the protocol inspector keeps, each agent's in wire order; for a view
        (`new_view`), only the messages naming its current session (requests and notifications)."""
        logs = {id(route.wire_log): route.wire_log for route in self.registry.agents.values()}
        messages = [m for log in logs.values() for m in log.messages()]
        if not self.own_session_only:
            return messages
        return [(d, m) for d, m in messages if _session_named(m) == self.state.session_id]

    @property
    def workspace(self) -> Path:
        return self.registry.settings.cwd

    async def new_view(self, timeout: float = 30.0) -> SessionDriver:
        """A new session on this driver's registry, open and ready, as a driver of its own.

        For a module whose tests share one agent: each test drives a session of its own, and its
        `wire_log` shows only what names that session. The caller closes it (`close`).
        """
        view = copy.copy(self)
        view.current = self.registry.new_session()
        view.own_session_only = True
        await eventually(
            lambda: view.state.session_id is not None and view.state.agent_status is AgentStatus.READY,
            timeout,
            "a new session",
        )
        return view

    async def close(self) -> None:
        """Close the session this driver drives (the agent answers `session/close` first)."""
        await self.registry.close(self.current.local_id)

    @property
    def state(self) -> SessionState:
        return self.current.state

    @property
    def supervisor(self) -> AgentSupervisor:
        return self.registry.supervisor

    async def start(self) -> None:
        await self.registry.start()

    async def shutdown(self) -> None:
        await self.registry.shutdown()

    async def restart(self) -> None:
        await self.registry.restart()

    def on_update(self, translation: Translation) -> None:
        self.registry.on_update(translation)

    def submit_prompt(self, parts: list[ContentPart], **kwargs: Any) -> None:
        self.current.submit_prompt(parts, **kwargs)

    def send_suggestion(self, generation: int, index: int, *, auto_sent: bool = False) -> None:
        self.current.send_suggestion(generation, index, auto_sent=auto_sent)

    async def cancel(self) -> None:
        await self.current.cancel()

    async def load_session(self, session_id: str, *, resume: bool = False) -> None:
        """Open a stored session; on success it becomes the session this driver drives."""
        self.current = await self.registry.open_stored(session_id, resume=resume)


def _session_named(message: dict[str, Any]) -> Any:
    params = message.get("params")
    return params.get("sessionId") if isinstance(params, dict) else None


@asynccontextmanager
async def started(settings: Settings, ready_within: float = 30.0) -> AsyncIterator[SessionDriver]:
    """A started driver whose agent is ready (or exited: the test then sees why); shut down after."""
    driver = SessionDriver(settings)
    await driver.start()
    try:
        await eventually(
            lambda: driver.state.agent_status in (AgentStatus.READY, AgentStatus.EXITED),
            ready_within,
            "the agent to be ready",
        )
        yield driver
    finally:
        await driver.shutdown()


# -- reading and driving a session, as the tests say it --------------------------------------------------


def answers(driver: SessionDriver) -> list[dict[str, Any]]:
    """What a scripted agent reported back as `ANSWER <json>` messages (e.g. the client's answers to it)."""
    texts = [i.text for i in driver.state.items if isinstance(i, MessageItem) and i.role == "agent"]
    return [json.loads(t.removeprefix("ANSWER ")) for t in texts if t.startswith("ANSWER ")]


def permission(driver: SessionDriver) -> PermissionItem | None:
    """The first permission request in the transcript, if any."""
    return next((i for i in driver.state.items if isinstance(i, PermissionItem)), None)


async def turn(driver: SessionDriver, text: str) -> None:
    """Send a prompt and wait for the agent's response to it."""
    driver.submit_prompt([TextPart(text=text)])
    await finish_turn(driver)


async def finish_turn(driver: SessionDriver) -> None:
    """Wait for the running turn to end (one must be running)."""
    assert driver.state.turn is not TurnState.IDLE, "no turn is running"
    await eventually(lambda: driver.state.turn is TurnState.IDLE, 20, "the turn to end")


def sent(driver: SessionDriver, method: str) -> list[dict[str, Any]]:
    """Params of every message of `method` the client sent."""
    return [m["params"] for d, m in driver.wire_log if d == "out" and m.get("method") == method]
