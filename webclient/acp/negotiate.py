"""Which ACP version one agent process speaks: offered, answered, and the fallback to v1.

With `auto` (or `2`) the agent is offered v2. An agent that answers 1 has read our v2 `initialize`
with its v1 types: it believes we advertised nothing (no prompt suggestions, no file system), and ACP
forbids a second `initialize` on the same connection. So it is stopped, and a fresh process gets the
v1 `initialize`. That costs a second start; the inspector says so, with the time it took, and the
supervisor remembers the answer so the agent's later restarts go straight to v1.

An agent that answers v2 with a JSON-RPC error (some v1-only agents do, instead of answering 1) gets the
same fallback under `auto`. A timeout or an exit does not: a hung or crashing agent would only do it
again, twice as slowly.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from webclient.acp.endpoint import AgentEndpoint
from webclient.acp.link import AgentLink
from webclient.acp.listener import AgentListener
from webclient.acp.v1.connection import AgentConnection
from webclient.acp.v2.connection import V2Connection, VersionMismatch
from webclient.errors import AgentError, AgentRequestError

ProtocolChoice = Literal["auto", "1", "2"]


@dataclass(frozen=True)
class Offer:
    """What to offer an agent: the choice, the `initialize` params of each version, the patience."""

    choice: ProtocolChoice
    v1_params: dict[str, Any]
    v2_params: dict[str, Any]
    timeout: float


class Negotiation:
    """Starts one agent in the version it speaks. `current` is the connection being started (so that
    stopping the agent mid-start reaches its process); `speaks_v1` remembers a fallback."""

    def __init__(self, spawn: Callable[[], AgentEndpoint], listener: AgentListener, offer: Offer) -> None:
        self._spawn = spawn
        self._listener = listener
        self._offer = offer
        self.speaks_v1 = offer.choice == "1"
        self.current: AgentLink | None = None

    async def connect(self) -> AgentLink:
        """A started connection; raises AgentError when the agent cannot be started or understood."""
        if self.speaks_v1:
            return await self._start(self._v1())
        started = time.monotonic()
        try:
            return await self._start(self._v2())
        except VersionMismatch as exc:
            if exc.answered != 1 or self._offer.choice == "2":
                raise AgentError(_unsupported(exc.answered, self._offer.choice)) from None
            reason = "answered ACP version 1"
        except AgentRequestError as exc:
            if self._offer.choice == "2":
                raise
            reason = f"refused ACP v2 ({exc})"
        self._listener.on_wire_note(
            f"The agent {reason} {time.monotonic() - started:.2f} s after it was started, so webclient "
            "stops it and starts it again with a v1 initialize: only that way does it learn webclient's "
            "v1 capabilities (prompt suggestions, files, terminals). Later restarts of this agent use v1 "
            "at once."
        )
        await self._stop_current()
        self.speaks_v1 = True
        return await self._start(self._v1())

    async def _start(self, connection: AgentLink) -> AgentLink:
        self.current = connection
        await connection.start()
        return connection

    async def _stop_current(self) -> None:
        if self.current is not None:
            await self.current.stop()

    def _v1(self) -> AgentLink:
        return AgentConnection(self._spawn(), self._listener, self._offer.v1_params, self._offer.timeout)

    def _v2(self) -> AgentLink:
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


def _unsupported(answered: int | None, choice: ProtocolChoice) -> str:
    if answered == 1:
        return "the agent speaks only ACP v1 and webclient was started with --protocol 2; use auto or 1"
    shown = "no protocol version" if answered is None else f"ACP version {answered}"
    return f"the agent answered {shown}; webclient speaks ACP v1 and v2 (offered: {choice})"
