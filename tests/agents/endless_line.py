"""Misbehaves: answers a prompt with a stdout "line" of 200 MiB that never ends (no newline), then waits.

Written in 1 MiB pieces so the agent itself stays small; once the client stops reading, the write
blocks until the agent is stopped. `after-say` first streams one chunk, so a test can check the
transcript survives.
"""

from __future__ import annotations

import sys

import wire

SESSION = "endless-1"
PIECE = b"x" * (1024 * 1024)
PIECES = 200

while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        wire.say(SESSION, "here it comes")
        sys.stdout.buffer.write(b'{"jsonrpc": "2.0", "method": "session/update", "params": {"blob": "')
        for _ in range(PIECES):
            sys.stdout.buffer.write(PIECE)
            sys.stdout.buffer.flush()
        sys.stdin.read()  # never answers the prompt; ends when the client closes stdin or kills it
