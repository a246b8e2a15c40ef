"""The garbage collector settled at quiet moments: a turn's objects frozen out of its passes, and the
cycles of a closed session collected all the same."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from webclient.domain.collector import Collector


class Cycle:
    """An object in a reference cycle: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def collector() -> Iterator[Collector]:
    collector = Collector()
    collector.enable()
    try:
        yield collector
    finally:
        gc.unfreeze()  # the test process's heap as it was


def test_a_turns_objects_leave_the_collectors_passes_when_it_ends(collector: Collector) -> None:
    kept = Cycle()
    collector.settle()
    assert gc.is_tracked(kept)
    assert any(obj is kept for obj in gc.get_objects()) is False  # frozen: no pass walks it


def test_a_cycle_frozen_at_a_turns_end_is_collected_when_its_session_closes(collector: Collector) -> None:
    session = Cycle()
    ref = weakref.ref(session)
    collector.settle()  # a turn ended while the session was open
    del session  # the session closed: only its cycle holds it
    gc.collect()
    assert ref() is not None  # frozen: an ordinary pass does not free it
    collector.release()
    assert ref() is None


def test_garbage_made_during_a_turn_is_collected_before_the_rest_is_frozen(collector: Collector) -> None:
    ref = weakref.ref(Cycle())  # garbage already when the turn ends
    collector.settle()
    assert ref() is None


def test_a_frozen_heap_that_doubled_is_collected_in_full_at_the_next_quiet_moment(
    collector: Collector,
) -> None:
    passes = collector.full_passes
    gone = [Cycle() for _ in range(10)]
    refs = [weakref.ref(obj) for obj in gone]
    collector.settle()
    del gone
    assert all(ref() is not None for ref in refs)
    grown = [Cycle() for _ in range(2 * gc.get_freeze_count())]  # the frozen heap more than doubles
    collector.settle()
    assert collector.full_passes == passes + 1
    assert all(ref() is None for ref in refs)
    assert grown


def test_a_collector_never_enabled_leaves_the_heap_alone() -> None:
    collector = Collector()
    ref = weakref.ref(Cycle())
    before = gc.get_freeze_count()
    collector.settle()
    collector.release()
    assert gc.get_freeze_count() == before and collector.full_passes == 0
    gc.collect()
    assert ref() is None
