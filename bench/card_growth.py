"""What an entry added to a tool call's content costs the server, at the start and at the end of a long
content: in-process, through the session state and a live hub with one tab (no agent, no browser).

The benchmark's own figure (`streaming.py`, the v2 content over 20,000 entries) reads the whole server's
CPU from the scheduler, a page behind it that cannot keep up with 2,000 entries a second; this one times
only the state's transition and the frame of each entry, on one thread, so it holds on a busy machine.

    .venv/bin/python bench/card_growth.py [ENTRIES]
"""

from __future__ import annotations

import asyncio
import sys
import time

from webclient.acp.models import TextPart, ToolCallContent, ToolCallEvent
from webclient.domain.state import SessionState
from webclient.views.live import LiveHub


async def per_entry(entries: int) -> list[float]:
    """The CPU seconds of each entry: applied to the state, and its frame rendered and queued for a tab."""
    hub = LiveHub(SessionState(session_id="s-1"), interval=3600)
    sub = hub.subscribe()

    def apply(event: ToolCallEvent) -> None:
        hub.mark(hub.state.apply(event))
        hub.flush()
        while not sub.frames.empty():
            sub.frames.get_nowait()

    apply(ToolCallEvent(tool_call_id="t", is_update=False, title="Read", status="in_progress"))
    times: list[float] = []
    for n in range(entries):
        piece = ToolCallContent(kind="content", content=TextPart(text=f"line {n} [t=1765000000000.000]"))
        started = time.thread_time()
        apply(ToolCallEvent(tool_call_id="t", is_update=True, appended=(piece,)))
        times.append(time.thread_time() - started)
    return times


def main() -> None:
    entries = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    times = asyncio.run(per_entry(entries))
    quarter = entries // 4
    first, last = (sum(part) / quarter * 1e6 for part in (times[:quarter], times[-quarter:]))
    print(
        f"{entries} entries: {first:.0f} us an entry over the first quarter, {last:.0f} us over the last "
        f"({last / first:.2f}x; target <= 1.5x)"
    )


if __name__ == "__main__":
    main()
