"""Where an agent runs, as a connection sees it: started, a stream of JSON-RPC messages, an end, a stop.

A local agent is a subprocess over stdio (`webclient.acp.process.AgentProcess`); a remote one is a
WebSocket or Streamable HTTP connection (`webclient.acp.remote`). Both hand the v1 and v2 connections
the same `MessageChannel`, so nothing above the transport knows which it talks to.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from webclient.errors import AgentError

GarbageCallback = Callable[[str], None]
OverflowCallback = Callable[[int], None]
# Returns True when it handled the message itself (the SDK never sees it).
Intercept = Callable[[dict[str, Any]], bool]


class MessageChannel(Protocol):
    """JSON-RPC messages both ways; what the SDK's `Connection` calls a transport."""

    async def send(self, message: dict[str, Any]) -> None: ...

    async def receive(self) -> dict[str, Any] | None:
        """The next object not taken by `intercept`; None once the stream has ended."""

    async def receive_any(self, *, batches: bool = True) -> dict[str, Any] | list[Any] | None:
        """The next object (or, with `batches`, array); None once the stream has ended."""

    async def close(self) -> None: ...


class InterceptingChannel:
    """`MessageChannel.receive` for every transport: `receive_any` without batches, less what `intercept`
    handled (it sees every object first, in arrival order)."""

    _intercept: Intercept | None

    async def receive_any(self, *, batches: bool = True) -> dict[str, Any] | list[Any] | None:
        raise NotImplementedError

    async def receive(self) -> dict[str, Any] | None:
        while True:
            message = await self.receive_any(batches=False)
            if message is None:
                return None
            assert isinstance(message, dict)
            if self._intercept is not None and self._intercept(message):
                continue
            return message


class AgentEndpoint(Protocol):
    """One agent to talk to: a process here or a server elsewhere."""

    @property
    def env(self) -> Mapping[str, str]:
        """The environment the agent runs with, as far as we know it (nothing, for a remote agent)."""

    @property
    def remote(self) -> bool: ...

    @property
    def description(self) -> str:
        """What to call the agent in a message: its program, or its URL."""

    async def start(self) -> None:
        """Spawn or connect; raises `AgentStartError` with a text that says why not."""

    def channel(
        self,
        on_garbage: GarbageCallback,
        *,
        on_overflow: OverflowCallback | None = None,
        intercept: Intercept | None = None,
    ) -> MessageChannel:
        """The message stream of the started agent."""

    async def wait(self) -> int:
        """Until the agent has gone (exited, or its connection ended); its exit code, or -1."""

    def exit_error(self, code: int | None) -> AgentError:
        """How the agent's end reads to the user, as the error a failed request raises."""

    def stderr_tail(self) -> list[str]: ...

    async def stop(self, grace: float = 2.0) -> None:
        """End it for sure (a process and its group; a connection, closed)."""
