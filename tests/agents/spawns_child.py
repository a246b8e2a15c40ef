"""Leaves a child behind: starts `sleep 300` at startup and never waits for it or stops it.

Otherwise it echoes like echo_agent. argv[1] is a file to write "agent-pid child-pid" to, so a test can
check that stopping the agent ends its whole process group.
"""

from __future__ import annotations

import subprocess
import sys

import wire

SESSION = "parent-1"

child = subprocess.Popen(["sleep", "300"])
wire.record_pid(sys.argv[1], child.pid)
while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        wire.say(SESSION, "You said: " + wire.prompt_text(msg))
        wire.respond(msg, {"stopReason": "end_turn"})
