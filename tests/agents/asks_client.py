"""Sends the client requests (permission, fs reads and writes) named in the prompt and reports each answer.

Prompt words: `permission` asks to run a tool; `read PATH [LINE LIMIT]`, `write PATH TEXT` use the
client's files.
Every answer (result or error) comes back as an agent message, so a test sees what the client said.
"""

from __future__ import annotations

import json
from typing import Any

import wire

SESSION = "client-1"
OPTIONS = [
    {"optionId": "allow", "name": "Run it", "kind": "allow_once"},
    {"optionId": "deny", "name": "Do not run", "kind": "reject_once"},
]


def ask(request_id: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    wire.request(request_id, method, {"sessionId": SESSION, **params})
    while (msg := wire.read()) is not None:
        if msg.get("id") == request_id and "method" not in msg:
            return msg
        if msg.get("method") == "session/cancel":
            continue  # the answer to the pending request still comes
    raise SystemExit(0)


def answer(request_id: str, text: str) -> dict[str, Any]:
    words = text.split(" ", 2)
    if words[0] == "permission":
        tool = {"toolCallId": "t1", "title": "rm -rf build/", "kind": "execute", "rawInput": {"cmd": "rm"}}
        return ask(request_id, "session/request_permission", {"toolCall": tool, "options": OPTIONS})
    if words[0] == "read":  # read PATH [LINE LIMIT]
        path, *rest = text.split(" ")[1:]
        extra = {"line": int(rest[0]), "limit": int(rest[1])} if rest else {}
        return ask(request_id, "fs/read_text_file", {"path": path, **extra})
    return ask(request_id, "fs/write_text_file", {"path": words[1], "content": words[2]})


count = 0
while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        count += 1
        reply = answer(f"req-{count}", wire.prompt_text(msg))
        wire.say(SESSION, "ANSWER " + json.dumps({k: reply[k] for k in ("result", "error") if k in reply}))
        wire.respond(msg, {"stopReason": "end_turn"})
