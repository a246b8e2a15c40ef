"""Misbehaves: never answers `initialize`.

It reads and ignores every message, and when stdin closes it still does not exit (as codex-acp does),
so only a signal ends it. argv[1], if given, is a file to write its pid to.
"""

from __future__ import annotations

import signal
import sys

import wire

wire.record_pid(sys.argv[1] if len(sys.argv) > 1 else None)
while wire.read() is not None:
    pass
while True:
    signal.pause()
