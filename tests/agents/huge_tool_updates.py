"""Heavy but legal: answers a prompt with one tool call and 60 updates of it, each carrying 5 MiB of
`rawOutput` (300 MiB in all), then `end_turn`. The client must not keep them all.

`huge_tool_updates.py [UPDATES [MIB]]` changes the count and the size of each.
"""

from __future__ import annotations

import sys

import wire

SESSION = "heavy-1"
UPDATES = int(sys.argv[1]) if len(sys.argv) > 1 else 60
OUTPUT = "o" * int(float(sys.argv[2]) * 1024 * 1024 if len(sys.argv) > 2 else 5 * 1024 * 1024)

while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        wire.update(
            SESSION, {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "big", "kind": "read"}
        )
        for n in range(UPDATES):
            body = {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "t1",
                "rawOutput": {"n": n, "out": OUTPUT},
            }
            wire.update(SESSION, body)
        wire.say(SESSION, "done")
        wire.respond(msg, {"stopReason": "end_turn"})
