"""One heavy but legal message at a time, through the real server and its page in Chromium: how long
other tabs wait while the server handles it, and how long a later load of the session's page takes.

The messages are those of tests/agents/big_items.py: a tool call's diff of 100,000 lines, the same change
as a file write, 20,000 suggestions of about 600 characters, one suggestion of 5,000,000 characters, a
user message chunk of 5 MB, and a message nested 800 levels deep. Each runs on a server of its own, sent
from its page as a user would; the other tabs' wait is the benchmark's loop-lag probe (bench/lag.py),
from the prompt until the page shows the turn's end; the page load is the browser's own navigation
timing (request to load event) of the session's page afterwards. The baseline, in the same run: the
probe's worst wait over the same time with the server idle, and the load of the page before the message
(what the machine itself adds). Prints medians of `--runs` runs next to the targets. It asserts nothing.

    .venv/bin/python bench/big_items.py [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import cdp  # bench/cdp.py: run as a script, this file's directory is on the path
from lag import LagProbe
from streaming import READY, server

ROOT = Path(__file__).resolve().parent.parent
AGENT = [sys.executable, str(ROOT / "tests" / "agents" / "big_items.py")]
WAIT_TARGET_MS = 100.0
LOAD_TARGET_MS = 1000.0

# (prompt, what it makes the agent send); `{file}` is a file of 100,000 lines in the workspace.
WORKLOADS = [
    ("diff", "a tool call's diff of 100,000 lines"),
    ("write {file}", "the same change as a file write"),
    ("suggestions", "20,000 suggestions of 600 characters"),
    ("long-suggestion", "one suggestion of 5,000,000 characters"),
    ("user-chunk", "a user message chunk of 5 MB"),
    ("deep", "a message nested 800 levels deep"),
]
SEND = (
    "document.querySelector('[data-testid=composer]').value = {text}; "
    "document.querySelector('[data-testid=send]').click(); true"
)
# The turn's end as the page shows it: the agent's closing message, and the agent ready again.
ENDED = (
    "[...document.querySelectorAll('[data-testid=message][data-role=agent]')]"
    ".some((m) => m.textContent.includes({mark})) && " + READY
)
LOAD_MS = "(() => { const n = performance.getEntriesByType('navigation')[0]; "
LOAD_MS += "return n && n.loadEventEnd > 0 ? n.loadEventEnd - n.startTime : 0; })()"


@dataclass
class Result:
    wait_ms: float  # other tabs' worst wait while the message was handled
    load_ms: float  # a later load of the session's page, request to load event
    idle_wait_ms: float  # the same probe as long, the server idle, just before
    first_load_ms: float  # the session's page before the message


async def one(browser: cdp.Browser, prompt: str, workspace: Path) -> Result:
    target = workspace / "big.txt"
    target.write_text("".join(f"line {n % 7}\n" for n in range(100_000)))
    prompt = prompt.replace("{file}", str(target))
    word = prompt.split(" ", 1)[0]
    argv = [sys.executable, "-m", "webclient", "--port", "0", "--no-browser", "--cwd", str(workspace)]
    argv += ["--agent", " ".join(AGENT)]
    with server(argv, ROOT) as (_, url):
        base = url.split("/?", 1)[0]
        page = await browser.new_page()
        try:
            await page.goto(url)
            await page.wait_for(READY, timeout=120)
            session = await page.evaluate("location.href")
            await page.goto(session)  # the page as it loads before the message, warm as the later load is
            await page.wait_for(READY, timeout=120)
            first = await page.wait_for(LOAD_MS, timeout=120)
            started = time.perf_counter()
            with LagProbe(base) as lag:
                await page.evaluate(SEND.replace("{text}", json.dumps(prompt)))
                await page.wait_for(ENDED.replace("{mark}", json.dumps(f"done {word}")), timeout=600)
            with LagProbe(base) as idle:
                await asyncio.sleep(time.perf_counter() - started)
            await page.goto(session)
            await page.wait_for(READY, timeout=120)
            load = await page.wait_for(LOAD_MS, timeout=120)
        finally:
            await page.close()
    return Result(lag.worst, float(load), idle.worst, float(first))


def mark(ok: bool) -> str:
    return "met" if ok else "NOT met"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="*", help="the prompts' first words to run (default: all)")
    args = parser.parse_args()
    chosen = [(p, what) for p, what in WORKLOADS if not args.only or p.split(" ", 1)[0] in args.only]
    results: dict[str, list[Result]] = {p: [] for p, _ in chosen}
    async with cdp.launch() as browser:
        for n in range(args.runs):
            print(f"run {n + 1}/{args.runs}", file=sys.stderr, flush=True)
            for prompt, _ in chosen:
                print(f"  {prompt.split(' ', 1)[0]}", file=sys.stderr, flush=True)
                with tempfile.TemporaryDirectory() as tmp:
                    results[prompt].append(await one(browser, prompt, Path(tmp)))
    print(f"\n{args.runs} runs, medians (worst of the runs in brackets).")
    print(
        "\n| message | other tabs' worst wait | idle server, as long | later page load | page before |"
        " target | |\n|---|---|---|---|---|---|---|"
    )
    for prompt, what in chosen:
        runs = results[prompt]
        wait, load = (statistics.median(getattr(r, a) for r in runs) for a in ("wait_ms", "load_ms"))
        idle, first = (
            statistics.median(getattr(r, a) for r in runs) for a in ("idle_wait_ms", "first_load_ms")
        )
        worst_wait, worst_load = max(r.wait_ms for r in runs), max(r.load_ms for r in runs)
        ok = wait <= WAIT_TARGET_MS and load <= LOAD_TARGET_MS
        target = f"wait <= {WAIT_TARGET_MS:.0f} ms, load <= {LOAD_TARGET_MS / 1000:.0f} s"
        print(
            f"| {what} | {wait:.0f} ms ({worst_wait:.0f}) | {idle:.0f} ms | {load:.0f} ms ({worst_load:.0f}) "
            f"| {first:.0f} ms | {target} | {mark(ok)} |"
        )


if __name__ == "__main__":
    asyncio.run(main())
