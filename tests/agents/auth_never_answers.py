"""A sign-in that never finishes: two methods are offered and `authenticate` is never answered.

`session/new` fails with -32000 (authentication required) as long as nobody signed in, which is for ever.
"""

from __future__ import annotations

import wire

METHODS = [
    {"id": "api-key", "name": "API key"},
    {"id": "browser-login", "name": "Sign in with a browser"},
]

while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result(authMethods=METHODS))
    elif method == "session/new":
        wire.error(msg, -32000, "Authentication required")
    # authenticate: no answer, ever
