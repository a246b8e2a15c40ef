"""How streaming costs the browser: WebSocket frames and bytes per agent chunk, with and without coalescing.

Runs the real server path in-process (a real agent subprocess, the session registry, the live hub and one
subscribed tab) on an agent that streams 3000 chunks as fast as it can, twice: once with the default
flush interval (100 ms) and once with interval 0, where the hub flushes on every event-loop turn: the
baseline, measured in the same run. Prints figures and ratios; asserts nothing, since timings on a
shared machine are noisy. "complete" is the time until the tab holds the whole answer.

    .venv/bin/python bench/streaming.py [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.live import scripted_agent  # noqa: E402
from webclient.acp.models import AgentStatus, TextPart  # noqa: E402
from webclient.domain.state import TurnState  # noqa: E402
from webclient.settings import Settings  # noqa: E402
from webclient.web.app import build_registry  # noqa: E402

COALESCED = "coalesced (100 ms)"
BASELINE = "baseline: flush every loop turn"


@dataclass
class Run:
    seconds: float
    frames: int
    frame_bytes: int


async def one_run(interval: float, workspace: Path) -> Run:
    registry = build_registry(Settings(agent=scripted_agent("flood"), cwd=workspace, flush_interval=interval))
    live = registry.most_recent()
    await registry.start()
    try:
        while live.state.agent_status is not AgentStatus.READY:
            await asyncio.sleep(0.01)
        tab = live.hub.subscribe()
        tab.frames.get_nowait()  # the snapshot
        frames = 0
        size = 0
        complete = 0.0
        started = time.perf_counter()
        live.submit_prompt([TextPart(text="go")])
        while True:  # read until the turn is over and nothing more comes
            try:
                frame = await asyncio.wait_for(tab.frames.get(), timeout=0.5)
            except TimeoutError:
                if live.state.turn is TurnState.IDLE and complete:
                    break
                continue
            if frame is None:
                break
            frames += 1
            size += len(frame)
            if not complete and " 2999" in frame:
                complete = time.perf_counter() - started
        return Run(complete, frames, size)
    finally:
        await registry.shutdown()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    workspace = ROOT
    results: dict[str, list[Run]] = {COALESCED: [], BASELINE: []}
    for _ in range(args.runs):
        results[COALESCED].append(await one_run(0.1, workspace))
        results[BASELINE].append(await one_run(0.0, workspace))
    chunks = 3000
    print(f"agent stream: {chunks} chunks, {args.runs} runs each (medians)")
    medians = {}
    for name, runs in results.items():
        frames = statistics.median(r.frames for r in runs)
        size = statistics.median(r.frame_bytes for r in runs)
        seconds = statistics.median(r.seconds for r in runs)
        medians[name] = (frames, size, seconds)
        print(
            f"  {name:32} {frames:6.0f} frames {size / 1024:8.1f} KiB  complete {seconds:5.2f} s  "
            f"{chunks / frames:7.1f} chunks/frame"
        )
    c, b = medians[COALESCED], medians[BASELINE]
    print(
        f"coalescing: {b[0] / c[0]:.1f}x fewer frames, {b[1] / c[1]:.1f}x fewer bytes; "
        f"time to the complete answer {c[2] / b[2]:.2f}x the baseline's"
    )


if __name__ == "__main__":
    asyncio.run(main())
