"""Another tab's service while a workload runs: the slowest answer to a small request, in ms.

The server answers every tab on one event loop, so a request as small as the favicon waits exactly as
long as the loop is held: its worst wait is the event loop's lag as another tab sees it.
"""

from __future__ import annotations

import time

import httpx
from sampling import Sampling  # bench/sampling.py: run as a script, this file's directory is on the path


class LagProbe(Sampling):
    """Asks `base`/favicon.ico back to back (every 5 ms) from entering the `with` block to leaving it;
    `worst` is the slowest answer, in ms."""

    def __init__(self, base: str) -> None:
        super().__init__(every=0.005)
        self._base = base
        self.worst = 0.0
        self._client = httpx.Client(timeout=60)

    def __exit__(self, *_: object) -> None:
        super().__exit__()
        self._client.close()

    def sample(self) -> None:
        started = time.perf_counter()
        self._client.get(self._base + "/favicon.ico")
        self.worst = max(self.worst, (time.perf_counter() - started) * 1000)
