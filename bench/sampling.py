"""A measurement taken on a thread of its own while a workload runs: `with` starts it, leaving stops it.

The benchmark's probes (the server's CPU time, another tab's wait for a small request) each take one
reading at a time; this is the loop they share, so a probe is only its reading.
"""

from __future__ import annotations

import threading
from typing import Self


class Sampling:
    """Calls `sample()` every `every` seconds (0: back to back) from entering the `with` block to
    leaving it."""

    def __init__(self, every: float = 0.0) -> None:
        self._every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def sample(self) -> None:
        raise NotImplementedError

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self._every)
