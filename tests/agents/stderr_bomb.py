"""Misbehaves: at start, writes 30 stderr lines of 15 MiB each (450 MiB in all), then exits with code 3.

Pieces of 1 MiB keep the agent itself small. The client must not carry all of it into the exit notice.
"""

from __future__ import annotations

import sys

PIECE = b"e" * (1024 * 1024)

for n in range(30):
    sys.stderr.buffer.write(f"line {n}: ".encode())
    for _ in range(15):
        sys.stderr.buffer.write(PIECE)
    sys.stderr.buffer.write(b"\n")
sys.stderr.buffer.write(b"the real error: config file missing\n")
sys.stderr.flush()
sys.exit(3)
