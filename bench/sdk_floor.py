"""The floor: the ACP SDK's own client, rendering nothing. `python bench/sdk_floor.py WORKLOAD -- AGENT...`

Runs one workload against the agent and prints, as JSON: seconds from the prompt to the end marker,
each stamp's latency in ms, and this process's CPU seconds and RSS for the workload.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, Client, spawn_agent_process, text_block

END = "\u2016"
STAMP = re.compile(r"\[t=(\d+\.\d+)\]")


class Floor(Client):  # type: ignore[misc]
    """Keeps only what the benchmark measures."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.ended = asyncio.Event()
        self.end_at = 0.0

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        text = getattr(getattr(update, "content", None), "text", None)
        meta = getattr(update, "field_meta", None) or {}
        delta = meta.get("terminal_output_delta") if isinstance(meta, dict) else None
        if isinstance(delta, dict) and isinstance(delta.get("data"), str):
            text = delta["data"]  # command output streamed in a tool call's `_meta`
        if not isinstance(text, str):
            return
        now = time.time() * 1000
        self.latencies.extend(now - float(stamp) for stamp in STAMP.findall(text))
        if END in text:
            self.end_at = time.perf_counter()
            self.ended.set()


def rss_mb() -> float:
    status = Path("/proc/self/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]


async def main() -> None:
    workload, agent = sys.argv[1], sys.argv[3:]
    # The SDK's Client protocol lists every method as required; the connection answers those missing.
    floor = Floor()  # type: ignore[abstract]
    async with spawn_agent_process(floor, *agent, transport_kwargs={"limit": 1 << 26}) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(Path.cwd()), mcp_servers=[])
        cpu = time.process_time()
        started = time.perf_counter()
        await conn.prompt(session_id=session.session_id, prompt=[text_block(workload)])
        await floor.ended.wait()
        result = {
            "seconds": floor.end_at - started,
            "latencies": floor.latencies,
            "cpu": time.process_time() - cpu,
            "rss_mb": rss_mb(),
        }
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
