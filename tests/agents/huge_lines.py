"""Answers a prompt with huge lines between small ones: a chunk, a 6 MB chunk, a chunk, a tool call whose
update carries 3 MB of output, a chunk, then `end_turn`, all written without a pause.

Each huge text repeats a numbered pattern (`<0000000>`, `<0000001>`, ...), so a test can check that it
came through whole, and the small chunks say where they stand ("before ", " between ", " after").
"""

from __future__ import annotations

import wire

SESSION = "huge-1"
CHUNK_ITEMS = 600_000  # 9 characters each: 5.4 MB
TOOL_ITEMS = 350_000  # 3.15 MB


def pattern(items: int) -> str:
    return "".join(f"<{n:07}>" for n in range(items))


while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        wire.say(SESSION, "before ")
        wire.say(SESSION, pattern(CHUNK_ITEMS))
        wire.say(SESSION, " between ")
        wire.update(SESSION, {"sessionUpdate": "tool_call", "toolCallId": "big", "title": "Read a big file"})
        output = [{"type": "content", "content": {"type": "text", "text": pattern(TOOL_ITEMS)}}]
        update = {"sessionUpdate": "tool_call_update", "toolCallId": "big", "status": "completed"}
        wire.update(SESSION, {**update, "content": output})
        wire.say(SESSION, " after")
        wire.respond(msg, {"stopReason": "end_turn"})
