"""TerminalView: the output a card shows of a terminal, kept as the pieces added to it; what was added
since a point is read from the last pieces alone."""

from __future__ import annotations

import random

from webclient.acp.models import TerminalStream
from webclient.domain.items import MAX_STREAMED_CHARS, TerminalView


def test_the_output_since_any_point_is_what_was_written_after_it() -> None:
    view, written = TerminalView(), ""
    rng = random.Random(7)
    for n in range(300):
        data = "x" * rng.randint(0, 9) + f"{n}\n"
        view.stream(TerminalStream(data=data))
        written += data
        for start in (0, len(written) // 2, len(written) - 300, len(written) - 1, len(written)):
            assert view.since(max(0, start)) == written[max(0, start) :]
        if n % 50 == 0:
            assert view.output == written  # joined once, and added to after
    assert view.length == len(written) and view.output == written


def test_a_capture_or_a_replacement_is_the_whole_output_again() -> None:
    view = TerminalView()
    view.stream(TerminalStream(data="one\n"))
    view.capture("one\ntwo\n", truncated=False, exit=None)
    assert (view.output, view.length, view.epoch) == ("one\ntwo\n", 8, 0)  # it only grew
    view.capture("fresh\n", truncated=False, exit=None)
    assert (view.output, view.since(2), view.epoch) == ("fresh\n", "esh\n", 1)


def test_output_past_the_bound_keeps_its_tail_and_says_the_head_was_dropped() -> None:
    view = TerminalView()
    line = "y" * 1023 + "\n"
    for _ in range(MAX_STREAMED_CHARS // len(line) + 1):
        view.stream(TerminalStream(data=line))
    assert view.truncated and view.length == MAX_STREAMED_CHARS * 3 // 4 == len(view.output)
    assert view.output.endswith(line)
