"""Small asyncio helpers every layer may use."""

from __future__ import annotations

import asyncio
from typing import Any


async def cancel_and_wait(task: asyncio.Future[Any]) -> None:
    """Cancel `task` and wait until it has ended, whatever it ended with.

    Not `task.cancel()` then `await task` under `suppress(CancelledError)`: that also swallows a
    cancellation of the caller that lands while it waits, and leaves the caller running on when it was
    told to stop (a shutdown then waits for ever). Here a cancellation of the caller goes on up.
    """
    task.cancel()
    await asyncio.wait({task})
    if not task.cancelled():
        task.exception()  # retrieved: it ended as it ended, and nobody is told twice


def close_transport(process: asyncio.subprocess.Process) -> None:
    """Close a subprocess's pipes and its asyncio transport, whatever still holds the other ends.

    A process that left the child's group (a daemon started with `setsid`) survives the group's SIGKILL
    and keeps the pipes open, so asyncio never finishes the transport by itself; left open, it outlives
    the event loop, and its finaliser fails later ("Exception ignored in BaseSubprocessTransport.__del__
    ... Event loop is closed"). Closing a finished transport again does nothing.
    """
    transport = getattr(process, "_transport", None)  # asyncio has no public way to close it
    if transport is not None:
        transport.close()


async def exited(process: asyncio.subprocess.Process, poll: float = 0.05) -> int:
    """The exit code, as soon as the process itself has exited.

    Not `process.wait()`: (on Python 3.11) it also waits until every pipe is closed, and a process it
    started that holds them (a daemon out of its group) keeps them open long after it died.
    """
    while process.returncode is None:
        await asyncio.sleep(poll)
    return process.returncode
