"""cancel_and_wait: a task is ended for sure, and a cancellation of the one who waits is never lost."""

from __future__ import annotations

import asyncio

import pytest

from webclient.aio import cancel_and_wait


async def slow_to_stop(stopped: list[str]) -> None:
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        await asyncio.sleep(0.2)  # a clean-up that takes a while, as stopping a process does
        stopped.append("done")
        raise


async def test_a_cancel_of_the_caller_while_it_waits_goes_on_up() -> None:
    stopped: list[str] = []
    inner = asyncio.create_task(slow_to_stop(stopped))
    await asyncio.sleep(0)
    caller = asyncio.create_task(cancel_and_wait(inner))
    await asyncio.sleep(0.05)  # the caller now waits for the inner task's clean-up
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    await asyncio.wait({inner})
    assert inner.cancelled() and stopped == ["done"]


async def test_it_waits_for_the_end_and_takes_an_error_the_task_ended_with() -> None:
    async def fails_on_cancel() -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            raise RuntimeError("clean-up failed") from None

    task = asyncio.create_task(fails_on_cancel())
    await asyncio.sleep(0)
    await cancel_and_wait(task)  # does not raise: the task ended, which is all the caller asked
    assert task.done() and isinstance(task.exception(), RuntimeError)


async def test_a_task_already_done_is_fine() -> None:
    task = asyncio.create_task(asyncio.sleep(0))
    await task
    await cancel_and_wait(task)
    assert task.done() and not task.cancelled()
