"""Misbehaves: writes things that are not JSON-RPC messages to stdout, between valid messages.

Six bad lines in all: log text before `initialize` is answered, a JSON array after it, a bare number
before answering `session/new`; inside a turn, a debug line and a JSON-RPC batch array between two
chunks, and a broken JSON object after them. Otherwise it behaves: the turn ends with `end_turn`.
"""

from __future__ import annotations

import sys

import wire

SESSION = "garbage-1"


def garbage(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


garbage("Starting scripted agent v0 (logging to stdout, oops)")
while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
        garbage("[1, 2, 3]")
    elif method == "session/new":
        garbage("42")
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        wire.say(SESSION, "first half, ")
        garbage("DEBUG: tokens=17 latency=3ms")
        garbage('[{"jsonrpc": "2.0", "method": "session/update", "params": {}}]')
        wire.say(SESSION, "second half")
        garbage("{not json either")
        wire.respond(msg, {"stopReason": "end_turn"})
