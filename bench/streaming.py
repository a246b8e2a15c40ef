"""Streaming at the speed of the browser: webclient against a bare relay and the SDK's own client.

All three run the same scripted agent (tests/agents/stream.py) on the same workloads, in one go:

- webclient: the real server (`python -m webclient`), its page in headless Chromium;
- relay: bench/relay.py, the agent's stdout piped to a WebSocket and a page appending one text node per
  chunk (the least a browser client can do);
- sdk: bench/sdk_floor.py, the ACP SDK's client rendering nothing (the floor, no browser).

Chromium is driven over the DevTools protocol with a plain WebSocket (bench/cdp.py); times are taken
inside the page with `performance.now()` and a MutationObserver and read afterwards. Prints medians of
`--runs` runs, the ratios next to the issue's targets, and the servers' CPU and RSS. It asserts nothing.

    .venv/bin/python bench/streaming.py [--runs 3] [--flood 20000] [--stamped 400] [--rate 200] \\
        [--long 20000] [--long-rate 2000] [--history 30000] [--big 5000000] [--no-keep] [--only WORD...]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import math
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import cdp  # bench/cdp.py: run as a script, this file's directory is on the path
from cpu import CpuSampler
from lag import LagProbe

ROOT = Path(__file__).resolve().parent.parent

AGENT = [sys.executable, str(ROOT / "tests" / "agents" / "stream.py")]
# ACP v2 only: a tool call's content streamed a piece at a time (`tool_call_content_chunk`).
AGENT_V2 = [sys.executable, str(ROOT / "tests" / "agents" / "v2_scripted.py")]
URL = re.compile(r"(http://\S+)")
TICKS = 100  # os.sysconf("SC_CLK_TCK") on Linux

# Installed in each page: the first sighting of each stamp and of the end marker, in page time.
PROBE = r"""
window.B = {seen: new Set(), lat: [], stamps: [], end: null, t0: null, mark: null, since: 0};
new MutationObserver((records) => {
  const now = performance.timeOrigin + performance.now();
  for (const record of records) {
    const nodes = record.type === "characterData" ? [record.target] : record.addedNodes;
    for (const node of nodes) {
      const text = node.textContent;
      if (!text) continue;
      for (const m of text.matchAll(/\[t=(\d+\.\d+)\]/g)) {
        // A stamp from before the prompt is an earlier answer's (a snapshot after a reconnect shows them);
        // read against the wall clock the agent stamps with.
        if (B.seen.has(m[1]) || parseFloat(m[1]) < B.since) continue;
        B.seen.add(m[1]); B.lat.push(now - parseFloat(m[1])); B.stamps.push(parseFloat(m[1]));
      }
      if (B.end === null && B.mark !== null && text.includes(B.mark)) B.end = now;
    }
  }
}).observe(document.body, {childList: true, subtree: true, characterData: true});
true
"""
# The end marker carries a tag unique to this workload: a page also shows earlier answers, and a
# snapshot may arrive after the prompt went out.
RESET = (
    "B.lat = []; B.stamps = []; B.end = null; B.mark = {mark}; "
    "B.t0 = performance.timeOrigin + performance.now(); B.since = Date.now() - 20; "
)
WEBCLIENT_SEND = (
    "document.querySelector('[data-testid=composer]').value = {text}; "
    + RESET
    + "document.querySelector('[data-testid=send]').click(); true"
)
RELAY_SEND = RESET + "relaySend({text}); true"
READY = "document.querySelector('[data-testid=agent-status]')?.dataset.state === 'ready'"

# A tab that renders nothing: a document of the server's origin that is not the page (its icon), holding
# a WebSocket to the session as the page does, and reading each frame only for stamps and the end marker.
# The server serves it exactly as a page (a snapshot, then every frame); it is how the history workload
# measures the server after 30,000 tool calls, which a real page takes minutes to show.
SOCKET_TAB = r"""new Promise((done) => {
  window.B = {seen: new Set(), lat: [], stamps: [], end: null, t0: null, mark: null, since: 0, ready: false};
  const socket = new WebSocket("ws://" + location.host + {path});
  socket.onopen = () => socket.send(KEY_FIRST);
  window.benchSend = (text) => socket.send(JSON.stringify({action: "prompt", text}));
  let snapshot = true;  // the first frame: the session as it was, stamps of earlier answers and all
  socket.onmessage = (event) => {
    if (snapshot) { snapshot = false; done(true); return; }
    const now = performance.timeOrigin + performance.now();
    const text = event.data;
    for (const m of text.matchAll(/\[t=(\d+\.\d+)\]/g)) {
      if (B.seen.has(m[1]) || parseFloat(m[1]) < B.since) continue;
      B.seen.add(m[1]); B.lat.push(now - parseFloat(m[1])); B.stamps.push(parseFloat(m[1]));
    }
    if (B.end === null && B.mark !== null && text.includes(B.mark)) B.end = now;
    if (B.end !== null && /data-testid="agent-status"\s+data-state="ready"/.test(text)) B.ready = true;
  };
})"""
SOCKET_SEND = RESET + "B.ready = false; benchSend({text}); true"
# A tab's first message is the page's key (static/sign_in_key.js keeps it in the origin's storage).
KEY_FIRST_JS = 'JSON.stringify({webclient_key: localStorage.getItem("webclient-sign-in-key") || ""})'
SOCKET_TAB = SOCKET_TAB.replace("KEY_FIRST", KEY_FIRST_JS)
SOCKET_READY = "B.ready === true"


@dataclass
class Result:
    seconds: float  # prompt -> end marker on screen (or received, for the SDK)
    latencies: list[float] = field(default_factory=list)  # stamp -> on screen, ms
    server_cpu: float = 0.0
    browser_cpu: float = 0.0
    rss_mb: float = 0.0
    loop_lag_ms: float = 0.0
    # Server CPU a stamped chunk over the first and the last quarter of the answer, in microseconds.
    cpu_start_us: float = float("nan")
    cpu_end_us: float = float("nan")


# --- processes ------------------------------------------------------------------------------------------


@contextmanager
def server(
    argv: list[str], cwd: Path, env: dict[str, str] | None = None
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """Start a server that prints its URL; yield it and the URL; stop and reap it."""
    # Its own process group, so stopping it stops what it started too (make's child, the agent).
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if match := URL.search(line):
                url = match.group(1)
                break
        else:
            raise RuntimeError(f"{argv[1]} did not start")
        threading.Thread(target=lambda: [None for _ in process.stdout or ()], daemon=True).start()
        yield process, url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]


# --- one workload in a page -----------------------------------------------------------------------------


TAGS = itertools.count(1)


async def in_page(page: cdp.Page, send: str, workload: str, pid: int, base: str | None) -> Result:
    print(f"  {workload}", file=sys.stderr, flush=True)
    tag = f"#{next(TAGS)}"
    cpu, browser = cpu_seconds(pid), await page.main_thread_seconds()
    lag = LagProbe(base) if base else None
    if lag:
        lag.__enter__()
    sampler = CpuSampler(pid).__enter__()
    try:
        script = send.replace("{text}", json.dumps(f"{workload} {tag}"))
        await page.evaluate(script.replace("{mark}", json.dumps("\u2016" + tag)))
        await page.wait_for("B.end !== null", timeout=600)
        if base:
            await page.wait_for(SOCKET_READY if send is SOCKET_SEND else READY, timeout=600)
    finally:
        sampler.__exit__()
        if lag:
            lag.__exit__()
    t0, end, latencies, stamps = await page.evaluate("[B.t0, B.end, B.lat, B.stamps]")
    cpu_start, cpu_end = sampler.per_chunk_us(stamps)
    return Result(
        seconds=(end - t0) / 1000,
        latencies=latencies,
        server_cpu=cpu_seconds(pid) - cpu,
        browser_cpu=await page.main_thread_seconds() - browser,
        rss_mb=rss_mb(pid),
        loop_lag_ms=lag.worst if lag else 0.0,
        cpu_start_us=cpu_start,
        cpu_end_us=cpu_end,
    )


def webclient_env(workspace: Path, keep: bool) -> dict[str, str]:
    """The server's environment: its state (the kept transcripts) in a folder of this run's own, so every
    session prompted is kept as a user's is, in a fresh store; `keep` False switches the keeping off."""
    state = workspace / "state"
    return {**os.environ, "WEBCLIENT_STATE_DIR": str(state), "WEBCLIENT_KEEP_TRANSCRIPTS": str(int(keep))}


async def run_browser_system(
    name: str,
    browser: cdp.Browser,
    workloads: list[str],
    workspace: Path,
    agent: list[str] = AGENT,
    keep: bool = True,
) -> dict[str, Result]:
    env = None
    if name == "webclient":
        argv = [sys.executable, "-m", "webclient", "--port", "0", "--no-browser", "--cwd", str(workspace)]
        argv += ["--agent", " ".join(agent), "--protocol", "2" if agent is AGENT_V2 else "1"]
        send, env = WEBCLIENT_SEND, webclient_env(workspace, keep)
    else:
        argv = [sys.executable, str(ROOT / "bench" / "relay.py"), *AGENT]
        send = RELAY_SEND
    results: dict[str, Result] = {}
    with server(argv, ROOT, env) as (process, url):
        base = url.split("/?", 1)[0] if name == "webclient" else None
        for workload in workloads:
            # A fresh tab per workload, as a user would open one: what an earlier workload left in a
            # page (20,000 text nodes, for the relay) must not slow the next one down.
            page = await browser.new_page()
            try:
                await page.goto(url)
                await page.wait_for(READY if base else "window.relayOpen === true")
                await page.evaluate(PROBE)
                if workload.startswith("after "):
                    results.update(await after_history(page, workload, process.pid, base))
                    continue
                results[workload] = await in_page(page, send, workload, process.pid, base)
            finally:
                await page.close()
    return results


async def after_history(page: cdp.Page, workload: str, pid: int, base: str | None) -> dict[str, Result]:
    """`after N WORKLOAD`: the workload in a tab that renders nothing (`SOCKET_TAB`), on the session as
    it is, then again after N tool calls in it. Both are measured the same way, so their ratio is the
    cost of the longer transcript alone."""
    _, calls, measured = workload.split(" ", 2)
    path = await page.evaluate("location.pathname.replace('/s/', '/ws/')")
    await page.goto(page_origin(await page.evaluate("location.href")) + "/static/favicon.svg")
    await page.evaluate(SOCKET_TAB.replace("{path}", json.dumps(path)))
    before = await in_page(page, SOCKET_SEND, measured, pid, base)
    await in_page(page, SOCKET_SEND, f"history {calls}", pid, None)
    await page.wait_for(SOCKET_READY, timeout=600)
    return {
        before_workload(workload): before,
        workload: await in_page(page, SOCKET_SEND, measured, pid, base),
    }


def page_origin(url: str) -> str:
    return "/".join(url.split("/", 3)[:3])


def run_sdk(workload: str) -> Result:
    argv = [sys.executable, str(ROOT / "bench" / "sdk_floor.py"), workload, "--", *AGENT]
    out = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600, check=True).stdout
    data = json.loads(out.strip().splitlines()[-1])
    return Result(
        seconds=data["seconds"], latencies=data["latencies"], server_cpu=data["cpu"], rss_mb=data["rss_mb"]
    )


# --- memory and start-up (webclient only) ---------------------------------------------------------------


async def memory(
    browser: cdp.Browser, workspace: Path, flood: int, sessions: int, keep: bool
) -> dict[str, float]:
    argv = [sys.executable, "-m", "webclient", "--port", "0", "--no-browser", "--cwd", str(workspace)]
    argv += ["--agent", " ".join(AGENT)]
    with server(argv, ROOT, webclient_env(workspace, keep)) as (process, url):
        page = await browser.new_page()
        try:
            await page.goto(url)
            await page.wait_for(READY)
            base = rss_mb(process.pid)
            opened = f"""new Promise((done) => {{
              const path = location.pathname.replace("/s/", "/ws/");
              const socket = new WebSocket("ws://" + location.host + path);
              socket.onopen = () => {{
                socket.send(KEY_FIRST);
                for (let i = 0; i < {sessions}; i++) socket.send(JSON.stringify({{action: "new_session"}}));
                setTimeout(() => {{ socket.close(); done(true); }}, 2000);
              }};
            }})"""
            await page.evaluate(opened.replace("KEY_FIRST", KEY_FIRST_JS))
            await page.goto(url)  # back to a session page: the newest one
            await page.wait_for(READY)
            listed = f"document.querySelectorAll('[data-testid=session-link]').length >= {sessions + 1}"
            await page.wait_for(listed)  # every session is open (the agent answered each session/new)
            with_sessions = rss_mb(process.pid)
            await page.evaluate(PROBE)
            before = rss_mb(process.pid)
            await in_page(page, WEBCLIENT_SEND, f"flood {flood}", process.pid, None)
            await page.wait_for(READY, timeout=600)
            after = rss_mb(process.pid)
        finally:
            await page.close()
    return {"base": base, "sessions": with_sessions - base, "flood": after - before}


def startup() -> dict[str, float]:
    """Seconds to `import webclient.web.app` in a fresh interpreter, and from launch to the printed URL."""
    code = "import time; t = time.perf_counter(); import webclient.web.app; print(time.perf_counter() - t)"
    imported = float(
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    )
    started = time.perf_counter()
    argv = [str(Path(sys.executable).parent / "webclient"), "--port", "0", "--no-browser"]
    with server(argv, Path(tempfile.gettempdir())):
        printed = time.perf_counter() - started
    started = time.perf_counter()
    with server(["make", "--no-print-directory", "run", "ARGS=--port 0 --no-browser"], ROOT):
        make_run = time.perf_counter() - started
    return {"import": imported, "url": printed, "make_run": make_run}


# --- the table ------------------------------------------------------------------------------------------


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else float("nan")


SYSTEMS = ("relay", "webclient", "sdk")


def stamped_workloads(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The stamped workloads, each with the shape of its answer: one paragraph, code block or list."""
    n, rate = args.stamped, args.rate
    return [
        (f"stamped {n} {rate}", "one paragraph"),
        (f"code {n} {rate}", "one code block"),
        (f"list {n} {rate}", "one list"),
        (f"terminal {n} {rate}", "one command's output"),
    ]


def long_workloads(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The long answers, each with its shape: one paragraph, and one command's output in a tool card."""
    n, rate = args.long, args.long_rate
    return [(f"stamped {n} {rate}", "one paragraph"), (f"terminal {n} {rate}", "one command's output")]


def v2_workloads(args: argparse.Namespace) -> list[str]:
    """Run by a scripted ACP v2 agent, webclient alone: a tool call's content streamed a stamped line a
    chunk (the relay and the floor speak v1, which has no such update)."""
    return [f"content {args.stamped} {args.rate}", f"content {args.long} {args.long_rate}"]


def history_workload(args: argparse.Namespace) -> str:
    return f"after {args.history} {stamped_workloads(args)[0][0]}"


def before_workload(after: str) -> str:
    """The key of the measurement an `after` workload takes before its history."""
    return "before" + after.removeprefix("after")


def mark(ok: bool) -> str:
    return "met" if ok else "NOT met"


@dataclass
class Figures:
    """The runs of one benchmark, read as medians over the repetitions."""

    runs: dict[str, dict[str, list[Result]]]

    def has(self, system: str, workload: str) -> bool:
        return bool(self.runs[system].get(workload))

    def med(self, system: str, workload: str, attr: str) -> float:
        return median([getattr(r, attr) for r in self.runs[system].get(workload, [])])

    def lat(self, system: str, workload: str, p: float) -> float:
        return median([percentile(r.latencies, p) for r in self.runs[system].get(workload, [])])

    def tail(self, system: str, workload: str) -> str:
        """p50/p99/worst of one system's latencies, or "-" when it did not run this."""
        if not self.has(system, workload):
            return "-"
        return "/".join(f"{self.lat(system, workload, p):.1f}" for p in (50, 99, 100))


def report(
    args: argparse.Namespace,
    runs: dict[str, dict[str, list[Result]]],
    mem: dict[str, float] | None,
    start: dict[str, float],
) -> None:
    figures = Figures(runs)
    print(f"\n{args.runs} runs, medians. Python {sys.version.split()[0]}, {_machine()}")
    print(f"Load average before the report: {_load()}; transcripts kept: {'no' if args.no_keep else 'yes'}")
    print("\n| workload | relay | webclient | SDK floor | target | |\n|---|---|---|---|---|---|")
    for section in (
        report_flood_time,
        report_stamped,
        report_long,
        report_cpu_growth,
        report_v2,
        report_history,
        report_flood_cpu,
        report_big,
    ):
        section(args, figures)
    report_memory(args, mem)
    report_startup(start)


def report_flood_time(args: argparse.Namespace, f: Figures) -> None:
    flood = f"flood {args.flood}"
    if f.has("webclient", flood):
        w, r, s = (f.med(x, flood, "seconds") for x in ("webclient", "relay", "sdk"))
        print(
            f"| {flood}: prompt -> last chunk in the DOM | {r:.2f} s | {w:.2f} s ({w / r:.2f}x relay, "
            f"{w / s:.2f}x floor) | {s:.2f} s | <= 0.6x relay, <= 1.5x floor | "
            f"{mark(w <= 0.6 * r and w <= 1.5 * s)} |"
        )


def report_stamped(args: argparse.Namespace, f: Figures) -> None:
    """Every shape streamed at the stamped rate, the ACP v2 tool call's content with them."""
    shapes = [*stamped_workloads(args), (v2_workloads(args)[0], "one tool call's content, ACP v2")]
    for workload, shape in shapes:
        if not f.has("webclient", workload):
            continue
        p50, p99 = f.lat("webclient", workload, 50), f.lat("webclient", workload, 99)
        print(
            f"| {workload} ({shape}): stamp -> DOM p50/p99/worst ms | {f.tail('relay', workload)} | "
            f"{f.tail('webclient', workload)} | {f.tail('sdk', workload)} | p50 <= 10, p99 <= 30 | "
            f"{mark(p50 <= 10 and p99 <= 30)} |"
        )


def report_long(args: argparse.Namespace, f: Figures) -> None:
    for long, shape in long_workloads(args):
        if f.has("webclient", long):
            seconds = f.med("webclient", long, "seconds")
            print(f"| {long} ({shape}): prompt -> end in the DOM | - | {seconds:.2f} s | - | - | |")


def report_cpu_growth(args: argparse.Namespace, f: Figures) -> None:
    for workload, shape in [*stamped_workloads(args), *long_workloads(args)]:
        if not f.has("webclient", workload):
            continue
        first, last = f.med("webclient", workload, "cpu_start_us"), f.med("webclient", workload, "cpu_end_us")
        relay = f.runs["relay"].get(workload, [])
        rf, rl = (median([getattr(x, a) for x in relay]) for a in ("cpu_start_us", "cpu_end_us"))
        relay_cell = f"{rf:.0f} -> {rl:.0f} us" if relay else "-"
        print(
            f"| {workload} ({shape}): server CPU a chunk, first -> last quarter | {relay_cell} | "
            f"{first:.0f} -> {last:.0f} us ({last / max(first, 1e-9):.2f}x) | - | last <= 1.5x first | "
            f"{mark(last <= 1.5 * first)} |"
        )


def report_v2(args: argparse.Namespace, f: Figures) -> None:
    for workload in v2_workloads(args):
        if not f.has("webclient", workload):
            continue
        first, last = f.med("webclient", workload, "cpu_start_us"), f.med("webclient", workload, "cpu_end_us")
        print(
            f"| {workload} (one tool call's content, ACP v2): stamp -> DOM p50/p99/worst ms; server CPU a "
            f"chunk, first -> last quarter | - | {f.tail('webclient', workload)}; "
            f"{first:.0f} -> {last:.0f} us ({last / max(first, 1e-9):.2f}x) | - | last <= 1.5x first | "
            f"{mark(last <= 1.5 * first)} |"
        )


def report_history(args: argparse.Namespace, f: Figures) -> None:
    after = history_workload(args)
    empty, before = stamped_workloads(args)[0][0], before_workload(after)
    if not f.has("webclient", after):
        return
    e = (f.med("webclient", before, "cpu_start_us") + f.med("webclient", before, "cpu_end_us")) / 2
    a = (f.med("webclient", after, "cpu_start_us") + f.med("webclient", after, "cpu_end_us")) / 2
    ratio = a / max(e, 1e-9)
    print(
        f"| {empty} after {args.history} tool calls, a tab rendering nothing: server CPU a chunk | - | "
        f"{a:.0f} us ({ratio:.2f}x the same before them, {e:.0f} us) | - | <= 1.5x | "
        f"{mark(a <= 1.5 * e)} |"
    )
    print(
        f"| {empty} after {args.history} tool calls: stamp -> frame received p50/p99/worst ms | - | "
        f"{f.tail('webclient', after)} (before them {f.tail('webclient', before)}) | - | - | |"
    )


def report_flood_cpu(args: argparse.Namespace, f: Figures) -> None:
    flood = f"flood {args.flood}"
    if not f.has("webclient", flood):
        return
    wc, sc = f.med("webclient", flood, "server_cpu"), f.med("sdk", flood, "server_cpu")
    print(
        f"| server CPU for {flood} | - | {wc:.2f} s ({wc / args.flood * 1e6:.0f} us a chunk, "
        f"{wc / sc:.2f}x floor) | {sc:.2f} s | <= 1.5x floor | {mark(wc <= 1.5 * sc)} |"
    )
    wb, rb = f.med("webclient", flood, "browser_cpu"), f.med("relay", flood, "browser_cpu")
    print(f"| browser main thread for {flood} | {rb:.2f} s | {wb:.2f} s ({wb / rb:.2f}x relay) | - | - | |")


def report_big(args: argparse.Namespace, f: Figures) -> None:
    md = f"markdown {args.markdown}"
    for workload in (md, *(f"{name} {args.big}" for name in ("big", "tool", "diff"))):
        if not f.has("webclient", workload):
            continue
        w, r = f.med("webclient", workload, "seconds"), f.med("relay", workload, "seconds")
        s = f.med("sdk", workload, "seconds")
        lag = f.med("webclient", workload, "loop_lag_ms")
        target = "loop lag <= 50 ms" if workload != md else "-"
        verdict = mark(lag <= 50) if workload != md else ""
        print(
            f"| {workload}: prompt -> end in the DOM; other tabs' worst wait | {r:.2f} s | {w:.2f} s; "
            f"{lag:.0f} ms | {s:.2f} s | {target} | {verdict} |"
        )


def report_memory(args: argparse.Namespace, mem: dict[str, float] | None) -> None:
    if mem is None:
        return
    print(
        f"| RSS: base / +{args.sessions} idle sessions / +{args.memory_flood} chunk flood, once over | - "
        f"| {mem['base']:.0f} / +{mem['sessions']:.0f} / +{mem['flood']:.0f} MB | - | 80 / 100 / 20 MB | "
        f"{mark(mem['base'] <= 80 and mem['sessions'] <= 100 and mem['flood'] <= 20)} |"
    )


def report_startup(start: dict[str, float]) -> None:
    imp, url, make_run = start["import"], start["url"], start["make_run"]
    if math.isnan(url):  # --no-startup
        return
    print(
        f"| start-up: import webclient.web.app / URL printed / make run (installed) | - | {imp:.2f} / "
        f"{url:.2f} / {make_run:.2f} s | - | URL <= 1 s, make run <= 2 s | "
        f"{mark(url <= 1 and make_run <= 2)} |"
    )


def _load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def _machine() -> str:
    import platform

    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.machine(),
    )
    return f"{os.cpu_count()} cores ({model}), Linux {platform.release()}"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--flood", type=int, default=20_000)
    parser.add_argument("--stamped", type=int, default=2_000, help="stamped chunks of each shape's answer")
    parser.add_argument("--rate", type=int, default=200)
    parser.add_argument("--long", type=int, default=20_000, help="stamped chunks of the long answer")
    parser.add_argument("--long-rate", type=int, default=2_000)
    parser.add_argument("--history", type=int, default=30_000, help="tool calls before the last workload")
    parser.add_argument("--markdown", type=int, default=400)
    parser.add_argument("--big", type=int, default=5_000_000)
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--memory-flood", type=int, default=100_000)
    parser.add_argument("--no-startup", action="store_true", help="skip the start-up timings")
    parser.add_argument(
        "--no-keep", action="store_true", help="the server keeps no transcript (an experiment: its cost)"
    )
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="WORD",
        help="only the workloads named by their first word (flood stamped code list terminal content "
        "markdown big tool diff after memory)",
    )
    args = parser.parse_args()
    await measure(args)


def chosen(args: argparse.Namespace, workloads: list[str]) -> list[str]:
    return [w for w in workloads if args.only is None or w.split()[0] in args.only]


async def measure(args: argparse.Namespace) -> None:
    workloads = chosen(
        args,
        [
            f"flood {args.flood}",
            *(workload for workload, _ in stamped_workloads(args)),
            f"markdown {args.markdown}",
            f"big {args.big}",
            f"tool {args.big}",
            f"diff {args.big}",
        ],
    )
    # The long answers measure the server alone (a relay's page of 20,000 text nodes in one paragraph
    # takes minutes); the history goes last, as its long transcript stays in the session.
    webclient_only = chosen(args, [*(long for long, _ in long_workloads(args)), history_workload(args)])
    v2 = chosen(args, v2_workloads(args))
    measured = [*workloads, *webclient_only, before_workload(history_workload(args)), *v2]
    runs: dict[str, dict[str, list[Result]]] = {x: {w: [] for w in measured} for x in SYSTEMS}
    keep = not args.no_keep
    mem = None
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp)
        async with cdp.launch() as browser:
            for n in range(args.runs):
                print(f"run {n + 1}/{args.runs}", flush=True)
                for system in ("webclient", "relay"):
                    mine = workloads + webclient_only if system == "webclient" else workloads
                    if not mine:
                        continue
                    for workload, result in (
                        await run_browser_system(system, browser, mine, workspace, keep=keep)
                    ).items():
                        runs[system][workload].append(result)
                for workload in workloads:
                    runs["sdk"][workload].append(run_sdk(workload))
                if v2:
                    done = await run_browser_system("webclient", browser, v2, workspace, AGENT_V2, keep)
                    for workload, result in done.items():
                        runs["webclient"][workload].append(result)
            if args.only is None or "memory" in args.only:
                mem = await memory(browser, workspace, args.memory_flood, args.sessions, keep)
    starts = [] if args.no_startup or args.only else [startup() for _ in range(args.runs)]
    report(args, runs, mem, {key: median([s[key] for s in starts]) for key in ("import", "url", "make_run")})


if __name__ == "__main__":
    asyncio.run(main())
