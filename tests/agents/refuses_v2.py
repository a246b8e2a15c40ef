"""A v1-only agent that answers an offer of ACP v2 with an error instead of its own version (some do),
and otherwise echoes like `echo_agent`. With `--structured`, the error is the v2 schema's own:
`-32022` with `UnsupportedProtocolVersionErrorData` (`requested`, `supported`)."""

from __future__ import annotations

import sys

import wire

SESSION = "refuses-1"

while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        if msg["params"].get("protocolVersion") != 1 and "--structured" in sys.argv:
            data = {"requested": msg["params"].get("protocolVersion"), "supported": [1]}
            wire.write(
                {
                    "jsonrpc": "2.0",
                    "id": msg["id"],
                    "error": {"code": -32022, "message": "Unsupported", "data": data},
                }
            )
        elif msg["params"].get("protocolVersion") != 1:
            wire.error(msg, -32600, "unsupported ACP protocol version 2")
        else:
            wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        wire.say(SESSION, "You said: " + wire.prompt_text(msg))
        wire.respond(msg, {"stopReason": "end_turn"})
