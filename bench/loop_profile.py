"""What holds the server's event loop while a workload streams: its long callbacks, and where they spend it.

Runs webclient (in a process of its own, as `loop_profile.py --serve`) with two instruments on its event
loop: every callback the loop runs is timed, and a thread samples the loop thread's Python stack every
millisecond while a callback has been running for more than `--hold` ms. Its page in headless Chromium
(bench/cdp.py) runs each workload, with another client asking for a small file meanwhile (the
benchmark's "other tabs' worst wait"). Prints, for each workload, that worst wait, the longest
callbacks, and the functions (innermost first, then the webclient frame that called them) where the
loop was held.

    .venv/bin/python bench/loop_profile.py ["big 5000000" "tool 5000000" "diff 5000000"] [--hold 5]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import json
import os
import pstats
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve()
HERE = SCRIPT.parent


# --- inside the server ----------------------------------------------------------------------------------


class LoopWatch:
    """Times each callback of the loop thread, and profiles the loop thread (cProfile), between a SIGUSR1
    (start afresh) and a SIGUSR2 (write the report)."""

    def __init__(self, hold_ms: float, report: Path) -> None:
        self._hold = hold_ms / 1000
        self._report = report
        self.long: list[tuple[float, str]] = []  # (ms, callback)
        self._profile: cProfile.Profile | None = None
        # Every pass of the cyclic garbage collector, on whichever thread: (generation, ms, collected).
        self.collections: list[tuple[int, float, int]] = []
        self._collecting = 0.0

    def install(self) -> None:
        from asyncio import events

        original = events.Handle._run
        watch = self

        def timed(handle: events.Handle) -> None:
            started = time.perf_counter()
            try:
                original(handle)
            finally:
                took = time.perf_counter() - started
                if took > watch._hold:
                    watch.long.append((took * 1000, _callback(handle)))

        events.Handle._run = timed  # type: ignore[method-assign]
        gc.callbacks.append(self._gc)
        signal.signal(signal.SIGUSR1, lambda *_: self.start())
        signal.signal(signal.SIGUSR2, lambda *_: self.dump())

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._collecting = time.perf_counter()
        else:
            took = (time.perf_counter() - self._collecting) * 1000
            self.collections.append((info["generation"], took, info["collected"]))

    def start(self) -> None:
        self.long = []
        self.collections = []
        self._profile = cProfile.Profile()
        self._profile.enable()  # the thread the signal handler runs on: the loop's

    def dump(self) -> None:
        if self._profile is None:
            return
        self._profile.disable()
        self._profile.dump_stats(self._report.with_suffix(".prof"))
        out = io.StringIO()
        stats = pstats.Stats(self._profile, stream=out)
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumulative").print_stats(40)
        data = {
            "long": sorted(self.long, reverse=True)[:30],
            "profile": out.getvalue(),
            "gc": self.collections,
            "objects": len(gc.get_objects()),
        }
        self._report.write_text(json.dumps(data))
        self._profile = None


def _callback(handle: Any) -> str:
    """A task step by the coroutine it runs, anything else by its repr."""
    callback = getattr(handle, "_callback", None)
    task = getattr(callback, "__self__", None)
    if isinstance(task, asyncio.Task):
        return f"task {task.get_coro()!r}"[:160]
    return repr(handle)[:160]


def serve(argv: list[str], hold_ms: float, report: Path) -> int:
    from webclient.web import cli

    watch = LoopWatch(hold_ms, report)
    original = cli.serve

    def serve_watched(*args: Any) -> None:  # whatever `cli.serve` takes
        watch.install()
        original(*args)

    cli.serve = serve_watched  # type: ignore[assignment]
    return cli.main(argv)


# --- the driver -----------------------------------------------------------------------------------------


async def run(workloads: list[str], hold_ms: float, save: Path | None, keep: bool = True) -> None:
    import cdp  # bench/: run as a script, this file's directory is on the path
    import streaming

    for workload in workloads:
        with tempfile.TemporaryDirectory() as tmp:
            report = Path(tmp) / "loop.json"
            argv = [sys.executable, str(SCRIPT), "--serve", str(hold_ms), str(report)]
            argv += ["--", "--port", "0", "--no-browser", "--cwd", tmp, "--agent", " ".join(streaming.AGENT)]
            env = streaming.webclient_env(Path(tmp), keep)
            with streaming.server(argv, streaming.ROOT, env) as (process, url):
                async with cdp.launch() as browser:
                    page = await browser.new_page()
                    try:
                        await page.goto(url)
                        await page.wait_for(streaming.READY)
                        await page.evaluate(streaming.PROBE)
                        # A small one first: the templates compiled, the page's first frames sent.
                        name, _, *rest = workload.split()  # the same workload, 100 of it
                        await streaming.in_page(
                            page, streaming.WEBCLIENT_SEND, " ".join([name, "100", *rest]), process.pid, None
                        )
                        await page.wait_for(streaming.READY)
                        os.kill(process.pid, signal.SIGUSR1)
                        result = await streaming.in_page(
                            page, streaming.WEBCLIENT_SEND, workload, process.pid, url.split("/?", 1)[0]
                        )
                        os.kill(process.pid, signal.SIGUSR2)
                        await _written(report)
                    finally:
                        await page.close()
            data = json.loads(report.read_text())
            if save is not None:
                save.mkdir(parents=True, exist_ok=True)
                shutil.copy(report.with_suffix(".prof"), save / (workload.replace(" ", "-") + ".prof"))
        print(
            f"\n## {workload}: prompt -> end {result.seconds:.2f} s, other tabs' worst wait "
            f"{result.loop_lag_ms:.0f} ms, server CPU {result.server_cpu:.2f} s"
        )
        _print_collections(data["gc"], data["objects"])
        print(f"callbacks over {hold_ms:g} ms (ms, callback):")
        for ms, name in data["long"][:12]:
            print(f"  {ms:7.1f}  {name}")
        print("the loop thread's profile:")
        print(data["profile"])


def _print_collections(collections: list[tuple[int, float, int]], objects: int) -> None:
    """The garbage collector's passes by generation: how many, their total and their longest."""
    print(f"objects the collector tracks at the end: {objects}")
    for generation in (0, 1, 2):
        times = [ms for g, ms, _ in collections if g == generation]
        if times:
            print(
                f"  generation {generation}: {len(times)} passes, {sum(times):.1f} ms in all, "
                f"longest {max(times):.1f} ms"
            )


async def _written(report: Path) -> None:
    for _ in range(500):
        if report.exists():
            return
        await asyncio.sleep(0.02)
    raise RuntimeError("the server wrote no report")


def main() -> None:
    if sys.argv[1:2] == ["--serve"]:  # the server: --serve HOLD REPORT -- webclient's own arguments
        hold, report, _, *rest = sys.argv[2:]
        raise SystemExit(serve(rest, float(hold), Path(report)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workloads", nargs="*", default=["big 5000000", "tool 5000000", "diff 5000000"])
    parser.add_argument("--hold", type=float, default=5.0, help="a callback longer than this (ms) is long")
    parser.add_argument("--save", type=Path, help="a folder to keep each workload's pstats file in")
    parser.add_argument("--no-keep", action="store_true", help="the server keeps no transcript")
    args = parser.parse_args()
    os.chdir(HERE.parent)
    asyncio.run(run(args.workloads, args.hold, args.save, not args.no_keep))


if __name__ == "__main__":
    main()
