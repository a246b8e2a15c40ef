"""A server's CPU time as a workload runs, sampled finely enough to tell its start from its end.

/proc/PID/stat counts in clock ticks (10 ms), too coarse for a few hundred chunks; the scheduler's own
count (/proc/PID/task/*/schedstat, nanoseconds, every thread) is not. Samples are taken every few
milliseconds against the wall clock, the clock the agent stamps its chunks with, so the CPU spent
between two stamps can be read off afterwards.
"""

from __future__ import annotations

import bisect
import contextlib
import time
from pathlib import Path

from sampling import Sampling  # bench/sampling.py: run as a script, this file's directory is on the path


def cpu_ns(pid: int) -> int:
    """CPU nanoseconds of every live thread of `pid`."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):  # a thread that ended meanwhile
            total += int((task / "schedstat").read_text().split()[0])
    return total


class CpuSampler(Sampling):
    """Samples `pid`'s CPU time every `every` seconds while in use; `between` reads it off."""

    def __init__(self, pid: int, every: float = 0.005) -> None:
        super().__init__(every)
        self._pid = pid
        self._times: list[float] = []  # wall clock, ms since the epoch
        self._cpu: list[int] = []

    def sample(self) -> None:
        self._times.append(time.time() * 1000)
        self._cpu.append(cpu_ns(self._pid))

    def at(self, when_ms: float) -> float:
        """CPU nanoseconds at a wall-clock time, interpolated between the samples around it."""
        i = bisect.bisect_left(self._times, when_ms)
        if i <= 0:
            return float(self._cpu[0])
        if i >= len(self._times):
            return float(self._cpu[-1])
        t0, t1, c0, c1 = self._times[i - 1], self._times[i], self._cpu[i - 1], self._cpu[i]
        return c0 + (c1 - c0) * (when_ms - t0) / (t1 - t0 or 1)

    def per_chunk_us(self, stamps: list[float], part: float = 0.25) -> tuple[float, float]:
        """CPU microseconds a chunk over the first and the last `part` of the stamped chunks.

        A window runs from one stamp to the stamp `part` of the way on: the agent writes at a steady
        rate, so both hold as many chunks. The last stamp is left out of the last window: the end of
        the answer and of the turn follow it at once."""
        ordered = sorted(stamps)
        if len(ordered) < 8:
            return float("nan"), float("nan")
        k = max(2, int(len(ordered) * part))

        def window(first: int) -> float:
            start, end = ordered[first], ordered[first + k - 1]
            return (self.at(end) - self.at(start)) / 1000 / (k - 1)

        return window(0), window(len(ordered) - 1 - k)
