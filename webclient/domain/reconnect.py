"""Reaching a remote agent again after its connection was lost: tries with a growing pause between them.

A server that restarts is back in seconds, one whose machine rebooted in minutes: the pause starts short
and doubles up to a bound. Errors that would only repeat (credentials, TLS, not an ACP endpoint, an agent
that refuses) end the tries; the user's "Reconnect now" cuts the current pause.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from webclient.acp.link import AgentLink
from webclient.errors import AgentTimeoutError, RemoteLost, RemoteUnreachable

# The pause before the first try, doubled after each failure up to the last.
RECONNECT_FIRST_DELAY = 0.5
RECONNECT_MAX_DELAY = 15.0
# What may work on a later try: nobody listening yet, a connection that broke again, a slow answer.
WORTH_ANOTHER_TRY = (RemoteUnreachable, RemoteLost, AgentTimeoutError)


class Reconnect:
    """The tries of one reconnection."""

    def __init__(self) -> None:
        self.delay = RECONNECT_FIRST_DELAY
        self._now = asyncio.Event()

    def now(self) -> None:
        """Try at once instead of at the end of the current pause."""
        self._now.set()

    async def until_connected(
        self, connect: Callable[[], Awaitable[AgentLink]], failed: Callable[[], Awaitable[None]]
    ) -> AgentLink:
        """`connect()`, again after each failure worth another try (`failed()` cleans up after one);
        raises the first error that is not."""
        while True:
            with contextlib.suppress(TimeoutError):  # a pause between tries, not a wait for something
                async with asyncio.timeout(self.delay):
                    await self._now.wait()
            self._now.clear()
            try:
                return await connect()
            except WORTH_ANOTHER_TRY:
                await failed()
                self.delay = min(self.delay * 2, RECONNECT_MAX_DELAY)
