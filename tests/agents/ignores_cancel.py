"""Ignores `session/cancel`: a prompt starts a turn that never ends, whatever the client asks.

It says "working on it" and then only reads (and drops) what comes, until its stdin closes.
"""

from __future__ import annotations

import wire

SESSION = "stubborn-1"

while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        wire.say(SESSION, "working on it")  # and never answers the prompt, cancelled or not
