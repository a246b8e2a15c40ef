"""Waiting with a deadline: the one way the tests wait for something to become true.

Every wait names what it waits for and fails the same way when its time is up: an `AssertionError`
saying "timed out after N s waiting for WHAT", with whatever the caller knows that helps (what a tab
received, an agent's stderr). `Deadline` is the contract; `wait_until` and `eventually` poll a predicate
with it, the first on a thread that may block, the second in an event loop. Readers that wait on a
stream (a tab's frames) use `Deadline` directly, blocking on the stream for `remaining()` at most.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import NoReturn, TypeVar

T = TypeVar("T")

# How often a predicate is polled: often enough that a wait ends within a frame of the event.
INTERVAL = 0.01


class Deadline:
    """`timeout` seconds from now, for a wait on `what`."""

    def __init__(self, timeout: float, what: str) -> None:
        self.timeout = timeout
        self.what = what
        self._end = time.monotonic() + timeout

    def remaining(self) -> float:
        """Seconds left, never below zero."""
        return max(self._end - time.monotonic(), 0.0)

    @property
    def passed(self) -> bool:
        return time.monotonic() >= self._end

    def fail(self, detail: str = "") -> NoReturn:
        """Raise the timeout: what was waited for, how long, and `detail` if given."""
        message = f"timed out after {self.timeout:g} s waiting for {self.what}"
        raise AssertionError(f"{message}; {detail}" if detail else message)


def wait_until(predicate: Callable[[], T], timeout: float, what: str, detail: Callable[[], str] = str) -> T:
    """Poll `predicate` on this thread until it returns something truthy, and return that.

    Fails after `timeout` seconds; `detail()` adds what the caller can tell about why.
    """
    deadline = Deadline(timeout, what)
    while not (value := predicate()):
        if deadline.passed:
            deadline.fail(detail())
        time.sleep(INTERVAL)
    return value


async def eventually(
    predicate: Callable[[], T],
    timeout: float = 10.0,
    what: str = "condition",
    detail: Callable[[], str] = str,
) -> T:
    """`wait_until` for a test in an event loop: poll `predicate` without blocking the loop."""
    deadline = Deadline(timeout, what)
    while not (value := predicate()):
        if deadline.passed:
            deadline.fail(detail())
        await asyncio.sleep(INTERVAL)
    return value
