"""Runs commands through the client's terminals (`terminal/*`), step by step as the prompt says.

The prompt is a JSON list of steps: `{"call": METHOD, "params": {...}}` sends that request (the session
id is added; the string "$tid" in params is the id of the terminal created last); `{"card": TITLE}` sends
a tool call that embeds the last terminal; `{"exit": CODE}` ends the agent at once. Every answer (result
or error) comes back in one agent message, `ANSWER [...]`, so a test sees what the client said.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import wire

SESSION = "term-1"


def ask(request_id: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    wire.request(request_id, method, {"sessionId": SESSION, **params})
    while (msg := wire.read()) is not None:
        if msg.get("id") == request_id and "method" not in msg:
            return {k: msg[k] for k in ("result", "error") if k in msg}
    raise SystemExit(0)


def with_terminal(params: dict[str, Any], terminal_id: str | None) -> dict[str, Any]:
    return {k: (terminal_id if v == "$tid" else v) for k, v in params.items()}


def run(steps: list[dict[str, Any]], turn: int) -> list[dict[str, Any]]:
    replies: list[dict[str, Any]] = []
    terminal_id = None
    for n, step in enumerate(steps):
        if "exit" in step:
            sys.exit(step["exit"])
        if "card" in step:
            content = [{"type": "terminal", "terminalId": terminal_id}]
            wire.update(SESSION, {"sessionUpdate": "tool_call", "toolCallId": f"call-{turn}-{n}",
                                  "title": step["card"], "kind": "execute", "status": "in_progress",
                                  "content": content})  # fmt: skip
            continue
        reply = ask(f"req-{turn}-{n}", step["call"], with_terminal(step.get("params", {}), terminal_id))
        terminal_id = reply.get("result", {}).get("terminalId", terminal_id)
        replies.append(reply)
    return replies


turn = 0
while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        turn += 1
        replies = run(json.loads(wire.prompt_text(msg)), turn)
        wire.say(SESSION, "ANSWER " + json.dumps(replies))
        wire.respond(msg, {"stopReason": "end_turn"})
