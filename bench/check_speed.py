"""How long `webclient check` takes, against its target: the demo agent's full check under 20 s.

Runs the check of the bundled demo agent (the version it speaks, then `--protocol both`) a few times in
a scratch workspace, and prints for each the median wall time, its ratio to the 20 s target, the CPU
the check and its agents used, and the machine's load average (the check runs agents side by side, so a
busy machine stretches it). Any agent command given is measured the same way.

    .venv/bin/python bench/check_speed.py [--runs 3] ["my-agent --acp" ...]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_S = 20.0


def measure(args: list[str], workspace: Path) -> tuple[float, float]:
    """Wall seconds and CPU seconds (the check and its children) of one check."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    argv = [sys.executable, "-m", "webclient", "check", "--cwd", str(workspace), *args]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} did not run ({done.returncode}):\n{done.stdout}{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("agents", nargs="*")
    options = parser.parse_args()
    cases = [("demo agent", []), ("demo agent, --protocol both", ["--protocol", "both"])]
    cases += [(agent, ["--agent", agent]) for agent in options.agents]
    with tempfile.TemporaryDirectory() as scratch:
        workspace = Path(scratch)
        (workspace / "README.md").write_text("# A project\n")
        print(f"target: the demo agent's check under {TARGET_S:g} s; load average {os.getloadavg()[0]:.1f}")
        for name, args in cases:
            runs = [measure(args, workspace) for _ in range(options.runs)]
            wall = statistics.median(w for w, _ in runs)
            cpu = statistics.median(c for _, c in runs)
            print(f"{name:<32} wall {wall:6.1f} s  ratio to target {wall / TARGET_S:4.2f}  CPU {cpu:5.1f} s")
        print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
