"""Answers in two halves with a pause the test controls: the gate file argv[1].

On `session/prompt` it streams "first half, ", then waits (at most 30 s) until the gate file exists,
then streams "second half." and ends the turn. This lets a test act while a turn is running.
"""

from __future__ import annotations

import os
import sys
import time

import wire

SESSION = "gated-1"
GATE = sys.argv[1]

while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        wire.say(SESSION, "first half, ")
        deadline = time.monotonic() + 30
        while not os.path.exists(GATE) and time.monotonic() < deadline:
            time.sleep(0.01)
        wire.say(SESSION, "second half.")
        wire.respond(msg, {"stopReason": "end_turn"})
