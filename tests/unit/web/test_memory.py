"""The server's process fixes glibc's mmap threshold (tests/integration/test_memory_floods.py shows the
effect on a flood through a real server)."""

from __future__ import annotations

import subprocess
import sys


def test_the_threshold_is_fixed_on_this_linux_with_glibc() -> None:
    # Run in a process of its own, so that the test run's own allocator is left as it was.
    code = "from webclient.web.memory import keep_big_buffers_unmapped as k; print(k())"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "True"
