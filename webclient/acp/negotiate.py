"""Which ACP version one agent process speaks: offered, answered, and the fallback to v1.

With `auto` (or `2`) the agent is offered v2. An agent that answers 1 has read our v2 `initialize`
with its v1 types: it believes we advertised nothing (no prompt suggestions, no file system), and ACP
forbids a second `initialize` on the same connection. So it is stopped, and a fresh process gets the
v1 `initialize`. That costs a second start; the inspector says so, with the time it took, and the
supervisor remembers the answer so the agent's later restarts go straight to v1.

An agent that answers v2 with a JSON-RPC error (some v1-only agents do, instead of answering 1), or
that answers 2 without the `info` v2 requires (a v1 agent echoing the version it was offered, like the
ACP Python SDK's examples), gets the same fallback under `auto`. A timeout or an exit does not: a hung or
crashing agent would only do it again, twice as slowly.

The process that answered v1 to a v2 `initialize` is of no further use, so it is stopped at once rather
than given the grace a working agent gets. Its answer is remembered in the user's state folder
(`VersionMemory`), so the agent command's later starts, in this server and the next ones, go to v1 at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from webclient.acp.endpoint import AgentEndpoint
from webclient.acp.link import AgentLink
from webclient.acp.listener import AgentListener
from webclient.acp.structured_errors import supports_v1
from webclient.acp.v1.connection import AgentConnection
from webclient.acp.v2.connection import V2Connection, VersionMismatch
from webclient.acp.version_memory import VersionMemory
from webclient.errors import AgentError, AgentRequestError

ProtocolChoice = Literal["auto", "1", "2"]
# Seconds a process known to be useless (it answered v1 to our v2 offer) gets for each step of its stop.
USELESS_GRACE = 0.1


@dataclass(frozen=True)
class Offer:
    """What to offer an agent: the choice, the `initialize` params of each version, the patience."""

    choice: ProtocolChoice
    v1_params: dict[str, Any]
    v2_params: dict[str, Any]
    timeout: float
    # The folder where the answers of earlier starts are kept (None: nowhere), and this agent's entry
    # there (its command line).
    state_dir: Path | None = None
    key: str = ""

    @property
    def memory(self) -> VersionMemory:
        return VersionMemory(self.state_dir)


class Negotiation:
    """Starts one agent in the version it speaks. `current` is the connection being started (so that
    stopping the agent mid-start reaches its process); `speaks_v1` remembers a fallback."""

    def __init__(self, spawn: Callable[[], AgentEndpoint], listener: AgentListener, offer: Offer) -> None:
        self._spawn = spawn
        self._listener = listener
        self._offer = offer
        remembered = offer.memory.answered(offer.key) if offer.choice == "auto" else None
        self._remembered = remembered[1] if remembered is not None and remembered[0] == 1 else None
        self.speaks_v1 = offer.choice == "1" or self._remembered is not None
        self.current: AgentLink | None = None

    async def connect(self) -> AgentLink:
        """A started connection; raises AgentError when the agent cannot be started or understood."""
        if self.speaks_v1:
            return await self._start_v1()
        started = time.monotonic()
        v2 = self._v2()
        try:
            connection = await self._start(v2)
        except VersionMismatch as exc:
            if exc.answered not in (1, 2) or (exc.answered == 2 and exc.not_v2 is None):
                raise AgentError(_unsupported(exc.answered, self._offer.choice)) from None
            if self._offer.choice == "2":
                raise AgentError(_not_v2(exc)) from None
            reason = "answered ACP version 1" if exc.answered == 1 else f"answered ACP version 2 {exc.not_v2}"
        except AgentRequestError as exc:
            if self._offer.choice == "2" and supports_v1(exc.code, exc.data):
                raise AgentError(_unsupported(1, "2")) from None
            if self._offer.choice == "2":
                raise
            reason = f"refused ACP v2 ({exc})"
        else:
            self._remember(2, connection)
            return connection
        self._listener.on_wire_note(
            f"The agent {reason} {time.monotonic() - started:.2f} s after it was started, so webclient "
            "stops it and starts it again with a v1 initialize: only that way does it learn webclient's "
            "v1 capabilities (prompt suggestions, files, terminals). Later starts of this agent use v1 "
            "at once, also after webclient restarts."
        )
        await v2.stop(USELESS_GRACE)  # it answered: it is alive, and of no further use
        self.speaks_v1 = True
        return await self._start_v1()

    async def _start_v1(self) -> AgentLink:
        connection = await self._start(self._v1())
        if self._offer.choice == "auto":
            if self._remembered is not None and self._remembered != _who(connection):
                # Another version of the agent than the one that answered v1: offer it v2 next time.
                self._offer.memory.forget(self._offer.key)
            elif self._remembered is None:
                self._remember(1, connection)
        return connection

    def _remember(self, version: int, connection: AgentLink) -> None:
        if self._offer.choice == "auto" and self._offer.key:
            self._offer.memory.remember(self._offer.key, version, _who(connection))

    async def _start(self, connection: AgentLink) -> AgentLink:
        self.current = connection
        await connection.start()
        return connection

    def _v1(self) -> AgentLink:
        return AgentConnection(self._spawn(), self._listener, self._offer.v1_params, self._offer.timeout)

    def _v2(self) -> V2Connection:
        return V2Connection(self._spawn(), self._listener, self._offer.v2_params, self._offer.timeout)


def connection_for(
    version: int, process: AgentEndpoint, listener: AgentListener, params: dict[str, Any], timeout: float
) -> AgentLink:
    """A connection of exactly this version, not yet started, with no fallback: for a probe that must
    know what the agent does with one declaration (`webclient check`). Its `start` raises
    `VersionMismatch` when the agent answers another version."""
    if version == 1:
        return AgentConnection(process, listener, params, timeout)
    return V2Connection(process, listener, params, timeout)


__all__ = ["Negotiation", "Offer", "ProtocolChoice", "VersionMismatch", "connection_for"]


def _who(connection: AgentLink) -> str:
    """The agent's name and version as it gave them in `initialize`."""
    info = connection.info
    return f"{info.name} {info.version or ''}".strip() if info is not None else ""


def _not_v2(exc: VersionMismatch) -> str:
    if exc.answered == 1:
        return _unsupported(1, "2")
    return (
        f"the agent answered ACP version 2 {exc.not_v2}: it speaks only ACP v1 and echoes the version it is "
        "offered; start webclient with --protocol 1 (or auto) for this agent"
    )


def _unsupported(answered: int | None, choice: ProtocolChoice) -> str:
    if answered == 1:
        return "the agent speaks only ACP v1 and webclient was started with --protocol 2; use auto or 1"
    shown = "no protocol version" if answered is None else f"ACP version {answered}"
    return f"the agent answered {shown}; webclient speaks ACP v1 and v2 (offered: {choice})"
