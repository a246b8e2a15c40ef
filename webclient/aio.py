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
