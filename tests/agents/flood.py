"""Floods the client: answers a prompt with 3000 tiny chunks written as fast as it can, then `end_turn`.

The chunks are "0 ", "1 ", ... "2999 ", so a test can check the final text is complete and in order.
"""

from __future__ import annotations

import wire

SESSION = "flood-1"
CHUNKS = 3000

while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        for i in range(CHUNKS):
            wire.say(SESSION, f"{i} ")
        wire.respond(msg, {"stopReason": "end_turn"})
