"""What every connection does about an agent's output it cannot use, its silence, and its exit.

Shared by the v1 and v2 connections: a line that is not JSON-RPC becomes a notice; an endless line stops
the agent (its memory stays bounded); a request that fails because the agent went away becomes an
`AgentExitedError` with its exit code and the last lines of its stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import Any, Protocol

from webclient.acp.endpoint import AgentEndpoint
from webclient.acp.models import Notice, NoticeLevel
from webclient.acp.transport import MAX_LINE_BYTES
from webclient.errors import AgentError, AgentTimeoutError

PREVIEW_CHARS = 200
EXIT_WAIT_SECONDS = 2.0


class NoticeListener(Protocol):
    def on_notice(self, notice: Notice) -> None: ...


class OutputWatch:
    """One agent process's unusable output and exit, told to its connection's listener."""

    def __init__(self, process: AgentEndpoint, listener: NoticeListener) -> None:
        self._process = process
        self._listener = listener
        self._stopping: asyncio.Future[None] | None = None  # a stop the agent's output forced

    def garbage(self, line: str) -> None:
        preview = line if len(line) <= PREVIEW_CHARS else line[:PREVIEW_CHARS] + "…"
        self._listener.on_notice(
            Notice(
                level=NoticeLevel.WARNING, text="the agent wrote a line that is not JSON-RPC", detail=preview
            )
        )

    def overflow(self, size: int) -> None:
        # The transport stopped reading mid-line; the agent cannot be understood any more, so it stops.
        self._listener.on_notice(
            Notice(
                level=NoticeLevel.ERROR,
                text=f"the agent wrote a line longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB "
                "without a newline; webclient stopped the agent so that memory stays bounded",
                detail=f"{size:,} bytes read without a newline",
            )
        )
        self._stopping = asyncio.ensure_future(self._process.stop(grace=0.5))

    async def exited_error(self) -> AgentError:
        """The agent's exit (or lost connection), as the error a failed request raises (its code, when
        it comes in time)."""
        code: int | None = None
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(EXIT_WAIT_SECONDS):
                code = await self._process.wait()
        return self._process.exit_error(code)


async def initialize_answer(request: Awaitable[Any], timeout: float) -> Any:
    """The answer to `initialize`, or AgentTimeoutError when the agent says nothing for `timeout` s.

    Not `asyncio.wait_for`: on Python 3.11 it loses a cancellation that lands just as the answer comes,
    and a server stopped at that moment would wait for ever.
    """
    try:
        async with asyncio.timeout(timeout):
            return await request
    except TimeoutError:
        raise AgentTimeoutError(f"the agent did not answer initialize within {timeout:g} s") from None
