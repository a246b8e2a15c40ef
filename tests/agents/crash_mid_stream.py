"""Misbehaves: crashes in the middle of a turn.

On `session/prompt` it streams two chunks, writes a fatal error and a few more lines to stderr, and exits
with code 3 without ever answering the prompt.
"""

from __future__ import annotations

import sys

import wire

SESSION = "crash-1"

while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        wire.say(SESSION, "Let me look ")
        wire.say(SESSION, "into that")
        wire.stderr(
            "fatal: model backend unreachable",
            "  while calling https://models.invalid/v1/chat",
            "giving up after 3 retries",
        )
        sys.exit(3)
