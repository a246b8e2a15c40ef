"""Writes files through the client and reports what the client answered, even after its turn is over.

Prompt words: `write PATH TEXT` asks `fs/write_text_file` and waits for the answer before it ends the
turn (a `session/cancel` meanwhile changes nothing: it still waits). `write-then-end PATH TEXT` ends the
turn at once, with its write still unanswered, and reports the answer when it comes.
Every answer comes back as an agent message `ANSWER {...}`, so a test sees what the client said.
"""

from __future__ import annotations

import json
from typing import Any

import wire

SESSION = "writer-1"


def wait_answer(request_id: str) -> dict[str, Any]:
    while (msg := wire.read()) is not None:
        if msg.get("id") == request_id and "method" not in msg:
            return msg
    raise SystemExit(0)


def report(reply: dict[str, Any]) -> None:
    wire.say(SESSION, "ANSWER " + json.dumps({k: reply[k] for k in ("result", "error") if k in reply}))


count = 0
while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        count += 1
        verb, path, content = wire.prompt_text(msg).split(" ", 2)
        request_id = f"write-{count}"
        wire.request(
            request_id, "fs/write_text_file", {"sessionId": SESSION, "path": path, "content": content}
        )
        if verb == "write-then-end":
            wire.respond(msg, {"stopReason": "end_turn"})
            report(wait_answer(request_id))
        else:
            report(wait_answer(request_id))
            wire.respond(msg, {"stopReason": "end_turn"})
