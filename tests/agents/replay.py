"""Replays what a real agent sent, line for line, from a recorded fixture in tests/agents/recorded/.

`replay.py NAME` reads `recorded/NAME.json`:

    {"agent": "gemini-cli", "version": "0.61.0", "protocol": 1,
     "source": "where the shape comes from",
     "session": "the session id the updates name",
     "answers": {"initialize": [STEP, ...], "session/new": [...],
                 "session/prompt": {"PROMPT": [...], "*": [...]}}}

Each request of a method in `answers` replays its steps (for `session/prompt`, the steps of the prompt's
text, else those of "*"); a method with no steps gets "method not found". A step is one of:
`{"update": BODY}` (a `session/update` for the session; the string "$prompt" in it stands for the
prompt the request carried, as a v2 agent's `user_message` repeats it), `{"result": VALUE}` /
`{"error": ERROR}` (the answer to the request), `{"request": {"id": ID, "method": M, "params": P}}`
(a request to the client; the replay goes on once the client answered it), `{"stderr": LINE}`,
`{"pause": SECONDS}`, `{"exit": CODE}`.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import wire

FIXTURE = json.loads((Path(__file__).parent / "recorded" / f"{sys.argv[1]}.json").read_text())
ANSWERS: dict[str, Any] = FIXTURE["answers"]


def steps_for(msg: dict[str, Any]) -> list[dict[str, Any]] | None:
    found = ANSWERS.get(msg["method"])
    if isinstance(found, dict):
        return found.get(wire.prompt_text(msg), found.get("*"))
    return found


def fill(value: Any, msg: dict[str, Any]) -> Any:
    if value == "$prompt":
        return (msg.get("params") or {}).get("prompt")
    if isinstance(value, dict):
        return {key: fill(inner, msg) for key, inner in value.items()}
    if isinstance(value, list):
        return [fill(inner, msg) for inner in value]
    return value


def wait_for_answer(request_id: Any) -> None:
    while (incoming := wire.read()) is not None:
        if incoming.get("id") == request_id and "method" not in incoming:
            return
        if "method" in incoming and "id" in incoming:
            replay(incoming)  # a request that crossed ours (say, session/cancel is a notification: skipped)
    sys.exit(0)


def replay(msg: dict[str, Any]) -> None:
    steps = steps_for(msg)
    if steps is None:
        wire.error(msg, -32601, f"Method not found: {msg['method']}")
        return
    session = (msg.get("params") or {}).get("sessionId") or FIXTURE.get("session", "")
    for step in steps:
        if "update" in step:
            wire.update(session, fill(step["update"], msg))
        elif "result" in step:
            wire.respond(msg, step["result"])
        elif "error" in step:
            wire.write({"jsonrpc": "2.0", "id": msg["id"], "error": step["error"]})
        elif "request" in step:
            wire.write({"jsonrpc": "2.0", **step["request"]})
            wait_for_answer(step["request"]["id"])
        elif "stderr" in step:
            wire.stderr(step["stderr"])
        elif "pause" in step:
            time.sleep(step["pause"])
        elif "exit" in step:
            sys.stdout.flush()
            sys.exit(step["exit"])


while (msg := wire.read()) is not None:
    if "method" in msg and "id" in msg:
        replay(msg)
