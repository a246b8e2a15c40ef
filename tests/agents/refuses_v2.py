"""A v1-only agent that answers an offer of ACP v2 with an error instead of its own version (some do),
and otherwise echoes like `echo_agent`."""

from __future__ import annotations

import wire

SESSION = "refuses-1"

while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        if msg["params"].get("protocolVersion") != 1:
            wire.error(msg, -32600, "unsupported ACP protocol version 2")
        else:
            wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        wire.say(SESSION, "You said: " + wire.prompt_text(msg))
        wire.respond(msg, {"stopReason": "end_turn"})
