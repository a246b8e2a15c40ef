"""An owner for background tasks: each is logged if it fails and cancelled when its owner closes."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import Any

__all__ = ["TaskOwner"]

log = logging.getLogger(__name__)


class TaskOwner:
    """Keeps strong references to its tasks (asyncio only keeps weak ones) until they finish."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._tasks: set[asyncio.Task[None]] = set()

    def spawn(self, coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(
            coroutine, name=f"{self._name}:{getattr(coroutine, '__qualname__', 'task')}"
        )
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task

    async def close(self) -> None:
        """Cancel every task still running and wait for them to end."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            log.error("%s: background task %s failed", self._name, task.get_name(), exc_info=error)
