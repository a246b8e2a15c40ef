"""An echo agent that takes argv[1] seconds to start (a runtime that loads slowly) before it reads."""

from __future__ import annotations

import sys
import time

import wire

time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)
SESSION = "slow-1"

while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        wire.say(SESSION, "You said: " + wire.prompt_text(msg))
        wire.respond(msg, {"stopReason": "end_turn"})
