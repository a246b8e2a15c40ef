"""Misbehaves: sends session updates the client cannot use, then carries on normally.

On `session/prompt`: an update of an unknown type, an `agent_message_chunk` whose content block has no
text, a chunk for a sessionId the client never opened; then a normal chunk and `end_turn`.
"""

from __future__ import annotations

import wire

SESSION = "malformed-1"

while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        wire.update(SESSION, {"sessionUpdate": "hologram_update", "frames": 3})
        wire.update(SESSION, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text"}})
        wire.say("someone-elses-session", "this text belongs to nobody")
        wire.say(SESSION, "still here after the bad updates")
        wire.respond(msg, {"stopReason": "end_turn"})
