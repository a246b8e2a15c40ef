"""The echo agent, taking argv[1] seconds to start (a runtime that loads slowly) before it reads."""

from __future__ import annotations

import sys
import time

time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)

import echo_agent  # noqa: E402, F401  (its loop runs on import: the agent proper)
