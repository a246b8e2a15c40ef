"""The one polling helper keeps its contract: the value that ended the wait, or a timeout naming what was
awaited, for how long, and what the caller could tell."""

from __future__ import annotations

import pytest

from tests.support.polling import Deadline, eventually, wait_until


def test_a_wait_returns_the_value_that_ended_it() -> None:
    calls = iter([0, [], "ready"])
    assert wait_until(lambda: next(calls), 5.0, "the third call") == "ready"


async def test_an_async_wait_returns_the_value_that_ended_it() -> None:
    calls = iter([None, {"id": 1}])
    assert await eventually(lambda: next(calls), 5.0, "the second call") == {"id": 1}


def test_a_timeout_names_what_was_awaited_how_long_and_the_detail() -> None:
    with pytest.raises(
        AssertionError, match=r"^timed out after 0.05 s waiting for the moon; it stayed down$"
    ):
        wait_until(lambda: False, 0.05, "the moon", lambda: "it stayed down")


async def test_an_async_timeout_says_the_same() -> None:
    with pytest.raises(AssertionError, match=r"^timed out after 0.05 s waiting for the moon$"):
        await eventually(lambda: False, 0.05, "the moon")


def test_a_deadline_counts_down_to_zero_and_never_below() -> None:
    deadline = Deadline(0.0, "nothing")
    assert deadline.passed and deadline.remaining() == 0.0
    assert 0.0 < Deadline(60.0, "later").remaining() <= 60.0
