"""The big-items benchmark still runs end to end (one message, one run): it must not rot. No timings
asserted."""

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


@pytest.mark.skipif(chromium_path() is None, reason="needs Debian's chromium-headless-shell or chromium")
def test_a_run_of_the_big_items_benchmark_prints_the_wait_the_load_and_their_baselines() -> None:
    argv = [sys.executable, str(ROOT / "bench" / "big_items.py"), "--runs", "1", "--only", "long-suggestion"]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    [row] = [line for line in done.stdout.splitlines() if line.startswith("| one suggestion of 5,000,000")]
    assert re.fullmatch(
        r"\| .+ \| \d+ ms \(\d+\) \| \d+ ms \| \d+ ms \(\d+\) \| \d+ ms \| .+ \| (met|NOT met) \|", row
    )
