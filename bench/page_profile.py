"""Where the page's main thread spends its time while an answer streams: a trace and a JS profile.

Runs webclient with the benchmark's scripted agent, opens its page in headless Chromium (bench/cdp.py),
and records each workload with the DevTools protocol's Tracing domain (the renderer's timeline: script,
style recalculation, layout, paint, with their sizes) and its Profiler domain (JavaScript by function).
Prints, for each workload, stamp -> DOM latency, the main thread's time by kind of work (self time, so
nested work is counted once), how many elements each style recalculation touched, how many layouts a
script forced, and the functions that took the most time.

    .venv/bin/python bench/page_profile.py ["stamped 400 200" "code 400 200" "list 400 200"] [--top 12]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import cdp  # bench/cdp.py: run as a script, this file's directory is on the path
import streaming

CATEGORIES = ",".join(
    (
        "devtools.timeline",
        "disabled-by-default-devtools.timeline",
        "v8.execute",
        "blink.user_timing",
        "toplevel",
        "disabled-by-default-devtools.timeline.invalidationTracking",
    )
)
# Trace event names grouped into the kinds of work a reader cares about.
KINDS = {
    "script": {"FunctionCall", "EvaluateScript", "v8.callFunction", "v8.run", "V8.Execute", "TimerFire"},
    "parse HTML": {"ParseHTML"},
    "style": {"UpdateLayoutTree", "RecalculateStyles", "ParseAuthorStyleSheet"},
    "layout": {"Layout", "UpdateLayer", "UpdateLayerTree"},
    "paint": {"Paint", "PrePaint", "Layerize", "PaintImage", "RasterTask", "CompositeLayers", "Commit"},
    "GC": {"MinorGC", "MajorGC", "V8.GC_SCAVENGER", "BlinkGC.AtomicPhase", "V8.GCScavenger"},
}


class Recorder:
    """One trace and one JS profile of a page, from `start` to `stop`."""

    def __init__(self, browser: cdp.Browser, page: cdp.Page) -> None:
        self._browser = browser
        self._page = page
        self.events: list[dict[str, Any]] = []
        self._done = asyncio.Event()

    async def start(self) -> None:
        self._browser.listeners["Tracing.dataCollected"] = [lambda p: self.events.extend(p["value"])]
        self._browser.listeners["Tracing.tracingComplete"] = [lambda _: self._done.set()]
        await self._page.call("Tracing.start", categories=CATEGORIES, transferMode="ReportEvents")
        await self._page.call("Profiler.enable")
        await self._page.call("Profiler.setSamplingInterval", interval=200)
        await self._page.call("Profiler.start")

    async def stop(self) -> dict[str, Any]:
        profile = (await self._page.call("Profiler.stop"))["profile"]
        await self._page.call("Tracing.end")
        await asyncio.wait_for(self._done.wait(), timeout=120)
        return dict(profile)


def main_thread(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The renderer main thread's complete events (the busiest `CrRendererMain`), in time order."""
    names = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name" and e["args"]["name"] == "CrRendererMain"
    }
    counts = Counter((e["pid"], e["tid"]) for e in events if (e["pid"], e["tid"]) in names)
    if not counts:
        return []
    busiest = counts.most_common(1)[0][0]
    mine = [e for e in events if (e["pid"], e["tid"]) == busiest and e.get("ph") == "X" and "dur" in e]
    return sorted(mine, key=lambda e: (e["ts"], -e["dur"]))


def self_times(events: list[dict[str, Any]]) -> tuple[dict[str, float], dict[str, Any]]:
    """Self time (ms) by event name, and facts: style recalcs' element counts, layouts forced by script."""
    own: dict[str, float] = defaultdict(float)
    stack: list[dict[str, Any]] = []
    facts: dict[str, Any] = {"recalc_elements": [], "forced_layouts": 0, "layouts": 0, "tasks_ms": []}
    for e in events:
        end = e["ts"] + e["dur"]
        while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"]:
            stack.pop()
        own[e["name"]] += e["dur"] / 1000
        if stack:
            own[stack[-1]["name"]] -= e["dur"] / 1000
        if e["name"] == "UpdateLayoutTree":
            count = e.get("args", {}).get("elementCount")
            if count is not None:
                facts["recalc_elements"].append(count)
        if e["name"] == "Layout":
            facts["layouts"] += 1
            if any(s["name"] in KINDS["script"] for s in stack):
                facts["forced_layouts"] += 1
        if e["name"] == "RunTask" and not stack:
            facts["tasks_ms"].append(e["dur"] / 1000)
        if end > e["ts"]:
            stack.append(e)
    return own, facts


def by_function(profile: dict[str, Any], top: int) -> list[tuple[float, str]]:
    """The functions with the most self time in a sampled JS profile, in ms."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    deltas = profile.get("timeDeltas", [])
    ms: dict[str, float] = defaultdict(float)
    for sample, delta in zip(profile.get("samples", []), [*deltas[1:], 0], strict=False):
        frame = nodes[sample]["callFrame"]
        url = frame["url"].rsplit("/", 1)[-1]
        ms[f"{frame['functionName'] or '(anonymous)'} {url}:{frame['lineNumber'] + 1}"] += delta / 1000
    return sorted(((v, k) for k, v in ms.items() if not k.startswith("(idle)")), reverse=True)[:top]


def report(
    workload: str, latencies: list[float], events: list[dict[str, Any]], profile: dict[str, Any], top: int
) -> None:
    own, facts = self_times(main_thread(events))
    cells = "/".join(f"{streaming.percentile(latencies, q):.1f}" for q in (50, 95, 99))
    print(f"\n## {workload}: stamp -> DOM p50/p95/p99 {cells} ms")
    total = sum(own.values())
    kinds = {kind: sum(own.get(n, 0) for n in names) for kind, names in KINDS.items()}
    kinds["other"] = total - sum(kinds.values())
    tasks = facts["tasks_ms"]
    print(f"main thread busy {total:.0f} ms in {len(tasks)} tasks (longest {max(tasks, default=0):.1f} ms)")
    print("| kind | ms |\n|---|---|")
    for kind, value in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print(f"| {kind} | {value:.0f} |")
    recalcs = sorted(facts["recalc_elements"])
    if recalcs:
        print(
            f"style recalcs: {len(recalcs)}, elements each: median {recalcs[len(recalcs) // 2]}, "
            f"max {recalcs[-1]}, total {sum(recalcs)}"
        )
    print(f"layouts: {facts['layouts']}, forced by a script: {facts['forced_layouts']}")
    busiest = sorted(own.items(), key=lambda kv: -kv[1])[:top]
    print("trace events by self time (ms): " + ", ".join(f"{name} {ms:.0f}" for name, ms in busiest))
    print("| JS function (self) | ms |\n|---|---|")
    for ms, name in by_function(profile, top):
        print(f"| {name} | {ms:.1f} |")


async def run(workloads: list[str], top: int, save: Path | None, relay: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        argv = [sys.executable, "-m", "webclient", "--port", "0", "--no-browser", "--cwd", tmp]
        argv += ["--agent", " ".join(streaming.AGENT)]
        send, ready = streaming.WEBCLIENT_SEND, streaming.READY
        if relay:  # the bare relay's page, for comparison
            argv = [sys.executable, str(streaming.ROOT / "bench" / "relay.py"), *streaming.AGENT]
            send, ready = streaming.RELAY_SEND, "window.relayOpen === true"
        with streaming.server(argv, streaming.ROOT) as (_process, url):
            async with cdp.launch() as browser:
                for n, workload in enumerate(workloads):
                    page = await browser.new_page()
                    try:
                        await page.goto(url)
                        await page.wait_for(ready)
                        await page.evaluate(streaming.PROBE)
                        recorder = Recorder(browser, page)
                        await recorder.start()
                        tag = f"#p{n}"
                        script = send.replace("{text}", json.dumps(f"{workload} {tag}"))
                        await page.evaluate(script.replace("{mark}", json.dumps("\u2016" + tag)))
                        await page.wait_for("B.end !== null", timeout=600)
                        profile = await recorder.stop()
                        latencies = await page.evaluate("B.lat")
                        if save is not None:
                            name = workload.replace(" ", "-")
                            (save / f"{name}.trace.json").write_text(json.dumps(recorder.events))
                            (save / f"{name}.cpuprofile").write_text(json.dumps(profile))
                        report(workload, latencies, recorder.events, profile, top)
                    finally:
                        await page.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workloads", nargs="*", default=["stamped 400 200", "code 400 200", "list 400 200"])
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--save", type=Path, help="a folder to keep the traces and profiles in")
    parser.add_argument("--relay", action="store_true", help="profile the bare relay's page instead")
    args = parser.parse_args()
    asyncio.run(run(args.workloads, args.top, args.save, args.relay))


if __name__ == "__main__":
    main()
