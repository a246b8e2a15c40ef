"""What hostile input costs the server's memory, through real servers, agents and endpoints: the peak
resident set (VmHWM) a server reaches, against the same server idle, and what a session's page weighs.

- `http-flood`: a Streamable HTTP endpoint that answers `initialize` with a body that never ends
  (tests/peers/hostile_http.py); the server must cut it at the 16 MiB message cap and say so;
- `notices`: 100,000 one-character chunks spread over 50 made-up session ids (v1, and v2 terminal
  output chunks; and v1 with one of the ids 1 MiB long, which makes each fiftieth message 1 MiB),
  tests/agents/memory_floods.py; one notice per session, the page stays small;
- `terminals`: 40 `terminal/create` that each print 4.2 MB and stay alive (tests/agents/
  uses_terminals.py): past 32 they are refused, the output kept together is capped, and a closed
  session gives it back.

Prints each figure next to its target and the figure before these limits (from the report that found
them). It asserts nothing.

    .venv/bin/python bench/hardening.py [--only http-flood notices terminals] [--chunks 100000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import websockets
from streaming import server

ROOT = Path(__file__).resolve().parent.parent
AGENTS = ROOT / "tests" / "agents"
MiB = 1024 * 1024


def peak_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]


class Tab:
    """A tab's WebSocket on a session, signed in as the page is (cookie, then the key first)."""

    def __init__(self, url: str) -> None:
        self.base = url.split("/?", 1)[0]
        answer = httpx.get(url, follow_redirects=False, timeout=60)
        self.cookie = answer.headers["set-cookie"].split(";", 1)[0]
        self.key = answer.headers["location"].partition("#webclient-key=")[2]
        self.tail = ""

    def page(self, path: str = "/s/s1") -> str:
        return httpx.get(self.base + path, headers={"cookie": self.cookie}, timeout=300).text

    async def open(self, local_id: str = "s1") -> None:
        headers = {"cookie": self.cookie, "origin": self.base}
        url = self.base.replace("http://", "ws://") + f"/ws/{local_id}"
        self.socket = await websockets.connect(
            url, additional_headers=headers, max_size=None, ping_interval=None
        )
        await self.socket.send(json.dumps({"webclient_key": self.key}))

    async def send(self, **action: object) -> None:
        await self.socket.send(json.dumps(action))

    async def until(self, text: str, timeout: float = 600) -> None:
        """Read frames until `text` shows (only the latest 1 MB of frames is kept)."""
        async with asyncio.timeout(timeout):
            while text not in self.tail:
                frame = await self.socket.recv()
                self.tail = (self.tail + str(frame))[-MiB:]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def webclient(agent: str, workspace: Path, *extra: str) -> list[str]:
    argv = [sys.executable, "-m", "webclient", "--port", "0", "--no-browser", "--cwd", str(workspace)]
    return [*argv, "--agent", agent, *extra]


async def idle_peak(workspace: Path) -> float:
    """A server with an agent that floods nothing, after one turn: the baseline."""
    agent = f"{sys.executable} {AGENTS / 'memory_floods.py'} none"
    with server(webclient(agent, workspace), ROOT) as (process, url):
        tab = Tab(url)
        await tab.open()
        await tab.until('data-state="ready"', timeout=120)
        await tab.send(action="prompt", text="hello")
        await tab.until("flooded")
        return peak_mb(process.pid)


async def http_flood(workspace: Path) -> dict[str, float]:
    port = free_port()
    endpoint = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "peers" / "hostile_http.py"), str(port), "flood"]
    )
    try:
        time.sleep(1.0)  # a benchmark may wait: the endpoint listens at once
        with server(webclient(f"http://127.0.0.1:{port}/acp", workspace), ROOT) as (process, url):
            tab = Tab(url)
            await tab.open()
            await tab.until("bytes in its answer to ACP", timeout=120)
            return {"peak": peak_mb(process.pid)}
    finally:
        endpoint.kill()
        endpoint.wait()


async def notices(workspace: Path, chunks: int, version: str, ids: str) -> dict[str, float]:
    mode = "made-up" if version == "1" else "made-up-v2"
    agent = f"{sys.executable} {AGENTS / 'memory_floods.py'} {mode} {chunks} {ids}"
    with server(webclient(agent, workspace, "--protocol", version), ROOT) as (process, url):
        tab = Tab(url)
        await tab.open()
        await tab.until('data-state="ready"', timeout=120)
        await tab.send(action="prompt", text="flood")
        await tab.until("flooded")
        await tab.until(f"{chunks:,} in all", timeout=120)
        started = time.monotonic()
        page = tab.page()
        load = time.monotonic() - started
        return {"peak": peak_mb(process.pid), "page_mb": len(page.encode()) / MiB, "load_s": load}


async def terminals(workspace: Path) -> dict[str, float]:
    agent = f"{sys.executable} {AGENTS / 'uses_terminals.py'}"
    with server(webclient(agent, workspace), ROOT) as (process, url):
        tab = Tab(url)
        await tab.open()
        await tab.until('data-state="ready"', timeout=120)
        command = "head -c 4400000 /dev/zero | tr '\\\\0' x; exec sleep 600"
        steps = [{"call": "terminal/create", "params": {"command": command}}] * 40
        await tab.send(action="prompt", text=json.dumps(steps))
        await tab.until("ANSWER", timeout=300)
        time.sleep(10.0)  # the commands' output read (a benchmark may wait; 40 x 4.2 MB)
        alive = peak_mb(process.pid)
        await tab.send(action="new_session")
        await tab.until("s2", timeout=120)
        await tab.send(action="close_session", local_id="s1")
        time.sleep(5.0)
        return {"peak": alive, "after_close": rss_mb(process.pid)}


def row(what: str, figure: str, before: str, target: str, ok: bool) -> None:
    print(f"| {what} | {figure} | {before} | {target} | {'met' if ok else 'NOT met'} |")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=["http-flood", "notices", "terminals"])
    parser.add_argument("--chunks", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp)
        base = await idle_peak(workspace)
        print(f"\nidle server's peak RSS: {base:.0f} MiB\n")
        print("| workload | figure | before the limits | target | |\n|---|---|---|---|---|")
        if "http-flood" in args.only:
            flood = await http_flood(workspace)
            grown = flood["peak"] - base
            what = "HTTP answer that never ends: peak RSS over idle"
            row(what, f"+{grown:.0f} MiB", "72 -> 2900 MiB in 25 s", "<= +50 MiB", grown <= 50)
        if "notices" in args.only:
            for version, ids in (("1", "short"), ("2", "short"), ("1", "long")):
                made = await notices(workspace, args.chunks, version, ids)
                grown = made["peak"] - base
                before = (
                    {"1": "39.7 MB page, +373 MiB", "2": "78.6 MB page"}[version] if ids == "short" else "-"
                )
                one = ", one id of 1 MiB" if ids == "long" else ""
                what = f"{args.chunks:,} chunks, 50 made-up sessions{one} (v{version}): page, load, peak RSS"
                row(what,
                    f"{made['page_mb']:.2f} MB, {made['load_s']:.2f} s, +{grown:.0f} MiB", before,
                    "page <= 1 MB, <= +50 MiB", made["page_mb"] <= 1 and grown <= 50)  # fmt: skip
        if "terminals" in args.only:
            held = await terminals(workspace)
            grown, after = held["peak"] - base, held["after_close"] - base
            row("40 live terminals of 4.2 MB: peak RSS over idle, RSS after the close",
                f"+{grown:.0f} MiB, +{after:.0f} MiB", "69 -> 281 MiB, 244 MiB after the close",
                "<= +100 MiB, <= +30 MiB after", grown <= 100 and after <= 30)  # fmt: skip


if __name__ == "__main__":
    asyncio.run(main())
