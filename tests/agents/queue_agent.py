"""A v1 agent whose turns take a moment, so a prompt sent right after another finds the first one running.

- any prompt: after 0.3 s, the answer "You said: ..." and `end_turn`;
- `ask ...`: first asks permission to run a tool, and answers once the client has answered.

Each `session/new` opens a session of its own, so one agent serves many tests.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import wire

OPTIONS = [
    {"optionId": "allow", "name": "Run it", "kind": "allow_once"},
    {"optionId": "deny", "name": "Do not run", "kind": "reject_once"},
]
_asked = itertools.count(1)


def ask(session_id: str) -> None:
    """Ask to run a tool and wait for the client's answer (nothing else comes meanwhile in v1)."""
    request_id = f"perm-{next(_asked)}"
    tool = {"toolCallId": request_id, "title": "make build", "kind": "execute", "rawInput": {"cmd": "make"}}
    wire.request(
        request_id,
        "session/request_permission",
        {"sessionId": session_id, "toolCall": tool, "options": OPTIONS},
    )
    while (msg := wire.read()) is not None:
        if msg.get("id") == request_id and "method" not in msg:
            return
    raise SystemExit(0)


def turn(request: dict[str, Any]) -> None:
    sid = request["params"]["sessionId"]
    said = wire.prompt_text(request)
    if said.startswith("ask"):
        ask(sid)
    else:
        time.sleep(0.3)
    wire.say(sid, f"You said: {said}")
    wire.respond(request, {"stopReason": "end_turn"})


wire.serve(turn, sessions="queue")
