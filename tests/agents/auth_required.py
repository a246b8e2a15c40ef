"""Requires sign-in: `session/new` fails with -32000 until `authenticate` names an offered method.

argv[1] is how many methods `initialize` offers: 1 (an API key) or 2 (also a browser login). An unknown
methodId is refused with -32602. Each prompt is answered with the method that was used.
"""

from __future__ import annotations

import sys

import wire

SESSION = "auth-1"
METHODS = [
    {"id": "api-key", "name": "API key", "description": "Use the key in SCRIPTED_API_KEY"},
    {"id": "browser-login", "name": "Sign in with a browser"},
][: int(sys.argv[1]) if len(sys.argv) > 1 else 1]

signed_in: str | None = None
while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result(authMethods=METHODS))
    elif method == "authenticate":
        method_id = msg["params"].get("methodId")
        if method_id in {m["id"] for m in METHODS}:
            signed_in = method_id
            wire.respond(msg, {})
        else:
            wire.error(msg, -32602, f"unknown auth method {method_id!r}")
    elif method == "session/new":
        if signed_in is None:
            wire.error(msg, -32000, "Authentication required")
        else:
            wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        wire.say(SESSION, f"signed in with {signed_in}")
        wire.respond(msg, {"stopReason": "end_turn"})
