"""What a piece added to a growing tool card costs the server, at the start and at the end of a long
card: in-process, through the session state and a live hub with one tab (no agent, no browser). Two
cards: an ACP v2 tool call's content an entry at a time, and a command's output a line at a time.

The benchmark's own figures (`streaming.py`, over 20,000 chunks) read the whole server's CPU from the
scheduler, with a page behind it that may not keep up; these time only the state's transition and the
piece's frame, one frame a piece, on one thread, so they hold on a busy machine.

    .venv/bin/python bench/card_growth.py [PIECES]
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable

from webclient.acp.models import TerminalStream, TextPart, ToolCallContent, ToolCallEvent
from webclient.domain.state import SessionState
from webclient.views.live import LiveHub


def content_entry(n: int) -> ToolCallEvent:
    piece = ToolCallContent(kind="content", content=TextPart(text=f"line {n} [t=1765000000000.000]"))
    return ToolCallEvent(tool_call_id="t", is_update=True, appended=(piece,))


def output_line(n: int) -> ToolCallEvent:
    stream = TerminalStream(terminal_id="t", data=f"test_{n:05} passed [t=1765000000000.000]\n")
    return ToolCallEvent(tool_call_id="t", is_update=True, terminal_stream=stream)


async def per_piece(pieces: int, piece: Callable[[int], ToolCallEvent]) -> list[float]:
    """The CPU seconds of each piece: applied to the state, and its frame rendered and queued for a tab."""
    hub = LiveHub(SessionState(session_id="s-1"), interval=3600)
    sub = hub.subscribe()

    def apply(event: ToolCallEvent) -> None:
        hub.mark(hub.state.apply(event))
        hub.flush()
        while not sub.frames.empty():
            sub.frames.get_nowait()

    apply(ToolCallEvent(tool_call_id="t", is_update=False, title="Work", status="in_progress"))
    times: list[float] = []
    for n in range(pieces):
        event = piece(n)
        started = time.thread_time()
        apply(event)
        times.append(time.thread_time() - started)
    return times


def main() -> None:
    pieces = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    quarter = pieces // 4
    for name, piece in (
        ("ACP v2 content entries", content_entry),
        ("lines of a command's output", output_line),
    ):
        times = asyncio.run(per_piece(pieces, piece))
        first, last = (sum(part) / quarter * 1e6 for part in (times[:quarter], times[-quarter:]))
        print(
            f"{pieces} {name}: {first:.0f} us a piece over the first quarter, {last:.0f} us over the last "
            f"({last / first:.2f}x; target <= 1.5x)"
        )


if __name__ == "__main__":
    main()
