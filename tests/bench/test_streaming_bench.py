"""The streaming benchmark still runs end to end (tiny workloads): it must not rot. No timings asserted."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.chromium import chromium_path

# A benchmark run with a browser: `make test` runs it, not `make test-fast`.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


# The bench finds the browser the way the browser tests do (no WEBCLIENT_CHROMIUM needed): this run
# checks that, and that every figure is still produced.
CHROMIUM = chromium_path()


@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium-headless-shell or chromium")
def test_a_tiny_run_of_the_streaming_benchmark_prints_every_figure_next_to_its_target() -> None:
    argv = [sys.executable, str(ROOT / "bench" / "streaming.py"), "--runs", "1", "--flood", "200"]
    argv += [
        "--stamped",
        "10",
        "--markdown",
        "8",
        "--big",
        "20000",
        "--sessions",
        "2",
        "--memory-flood",
        "200",
    ]
    argv += ["--long", "40", "--history", "20", "--no-startup"]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    table = done.stdout
    for figure in (
        "flood 200:",
        "stamped 10 200 (one paragraph):",
        "code 10 200 (one code block):",
        "list 10 200 (one list):",
        "terminal 10 200 (one command's output):",
        "stamped 40 2000 (one paragraph): server CPU",
        "terminal 40 2000 (one command's output): server CPU",
        "content 10 200 (one tool call's content, ACP v2)",
        "content 40 2000 (one tool call's content, ACP v2)",
        "after 20 tool calls",
        "server CPU",
        "markdown 8:",
        "big 20000:",
        "tool 20000:",
        "diff 20000:",
        "RSS:",
    ):
        assert figure in table, table
    rows = [line for line in table.splitlines() if line.startswith("| ") and "workload" not in line]
    assert all(not re.search(r"\bnan\b", row) for row in rows), table
    # Each shape at the stamped rate, the ACP v2 content too: p50, p99 and the worst chunk.
    tails = [row for row in rows if "stamp -> DOM p50/p99/worst ms |" in row]
    assert len(tails) == 5 and all(re.search(r"\| [\d.]+/[\d.]+/[\d.]+ \|", row) for row in tails), table
    assert "transcripts kept: yes" in table
