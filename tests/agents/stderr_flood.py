"""Chatty on stderr: writes 4 MiB of log lines to stderr before answering `initialize`.

A client that does not read the agent's stderr leaves it blocked on a full pipe (64 KiB), so
`initialize` would never be answered. Otherwise it echoes like echo_agent.
"""

from __future__ import annotations

import sys

import wire

SESSION = "chatty-1"
LINE = "debug: " + "x" * 1017 + "\n"  # 1 KiB per line

sys.stderr.write(LINE * 4096)
sys.stderr.write("last stderr line\n")
sys.stderr.flush()
while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        wire.say(SESSION, "You said: " + wire.prompt_text(msg))
        wire.respond(msg, {"stopReason": "end_turn"})
