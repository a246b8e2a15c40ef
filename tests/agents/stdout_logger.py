"""Misbehaves: logs to stdout. Answers a prompt with 200 chunks ("0 " ... "199 ") and a log line after
each one ("log: step N"), then `end_turn`."""

from __future__ import annotations

import sys

import wire

SESSION = "logger-1"
STEPS = 200

while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        for n in range(STEPS):
            wire.say(SESSION, f"{n} ")
            sys.stdout.write(f"log: step {n}\n")
            sys.stdout.flush()
        wire.respond(msg, {"stopReason": "end_turn"})
