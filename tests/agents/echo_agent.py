"""A well-behaved minimal agent: echoes each prompt back in three chunks."""

from __future__ import annotations

import wire

SESSION = "echo-1"

while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        text = wire.prompt_text(msg)
        for piece in ("You said: ", text[: len(text) // 2], text[len(text) // 2 :]):
            wire.say(SESSION, piece)
        wire.respond(msg, {"stopReason": "end_turn"})
