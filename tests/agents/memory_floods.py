"""Floods one path that used to keep whatever it was sent; argv[1] picks which:

- `terminals` (v1): each prompt runs 60 client terminals of 1 MiB of output each, shown in a card, and
  releases them;
- `display` (v2): each prompt streams 150 display terminals of 1 MiB each into cards;
- `sessions` (v1): each prompt sends 4 updates of 1.5 MiB for each of 40 session ids it made up;
- `opening` (v1): `session/new` sends 3000 updates of 50 KiB for the session before it answers;
- `made-up` (v1) / `made-up-v2`: each prompt sends 5000 (argv[2], if given) one-character chunks (v2:
  terminal output chunks) spread over 50 session ids it made up, one of them 1 MiB long (unless
  argv[3] is `short`).

Every turn ends with the reply "flooded".
"""

from __future__ import annotations

import base64
import sys
from typing import Any

import wire

MODE = sys.argv[1]
VERSION = 2 if MODE in ("display", "made-up-v2") else 1
SESSION = "flood-1"
MiB = 1024 * 1024
turns = 0


def ask(request_id: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    wire.request(request_id, method, {"sessionId": SESSION, **params})
    while (msg := wire.read()) is not None:
        if msg.get("id") == request_id and "method" not in msg:
            return dict(msg.get("result") or {})
    raise SystemExit(0)


def terminals() -> None:
    for n in range(60):
        made = ask(f"c{turns}-{n}", "terminal/create", {"command": f"head -c {MiB} /dev/zero | tr '\\\\0' x"})
        tid = made["terminalId"]
        card = {"sessionUpdate": "tool_call", "toolCallId": f"t{turns}-{n}", "title": f"run {n}"}
        wire.update(
            SESSION, {**card, "kind": "execute", "content": [{"type": "terminal", "terminalId": tid}]}
        )
        ask(f"w{turns}-{n}", "terminal/wait_for_exit", {"terminalId": tid})
        ask(f"r{turns}-{n}", "terminal/release", {"terminalId": tid})


def display() -> None:
    data = base64.b64encode(b"d" * MiB).decode()
    for n in range(150):
        tid = f"d{turns}-{n}"
        ref = {"type": "terminal", "terminalId": tid}
        wire.update(SESSION, {"sessionUpdate": "tool_call_content_chunk", "toolCallId": f"t{turns}-{n}",
                              "content": ref})  # fmt: skip
        wire.update(SESSION, {"sessionUpdate": "terminal_update", "terminalId": tid, "command": "make"})
        wire.update(SESSION, {"sessionUpdate": "terminal_output_chunk", "terminalId": tid, "data": data})


def sessions() -> None:
    text = "s" * (3 * MiB // 2)
    for n in range(40):
        for _ in range(4):
            wire.say(f"made-up-{turns}-{n}", text)


def made_up() -> None:
    long = len(sys.argv) <= 3 or sys.argv[3] != "short"  # one id of 1 MiB, unless told otherwise
    ids = [f"made-up-{n}" for n in range(49)] + ["L" * MiB if long else "made-up-49"]
    chunk = {"sessionUpdate": "terminal_output_chunk", "terminalId": "t1", "data": "eA=="}  # "x"
    for n in range(int(sys.argv[2]) if len(sys.argv) > 2 else 5000):
        if VERSION == 2:
            wire.update(ids[n % 50], chunk)
        else:
            wire.say(ids[n % 50], "x")


def say(text: str) -> None:
    body = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    wire.update(SESSION, {**body, "messageId": f"a{turns}"} if VERSION == 2 else body)


while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        if VERSION == 2:
            caps: dict[str, object] = {"session": {}}
            wire.respond(msg, {"protocolVersion": 2, "info": {"name": "floods"}, "capabilities": caps})
        else:
            wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        if MODE == "opening":
            for _ in range(3000):
                wire.say(SESSION, "o" * 50 * 1024)
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        turns += 1
        if VERSION == 2:
            wire.respond(msg, {})
            prompt = msg["params"]["prompt"]
            wire.update(
                SESSION, {"sessionUpdate": "user_message", "messageId": f"u{turns}", "content": prompt}
            )
            wire.update(SESSION, {"sessionUpdate": "state_update", "state": "running"})
        modes = {"terminals": terminals, "display": display, "sessions": sessions, "made-up": made_up}
        modes.get(MODE, made_up if MODE == "made-up-v2" else lambda: None)()
        say("flooded")
        if VERSION == 2:
            wire.update(SESSION, {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
        else:
            wire.respond(msg, {"stopReason": "end_turn"})
