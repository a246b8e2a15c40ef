"""Misbehaves: crashes mid-turn while a child it started still holds its stdout and stderr open.

At startup it starts `sleep 300`, which inherits its pipes (as a tool or server an agent spawns does).
On `session/prompt` it streams one chunk, writes an error to stderr and exits with code 3. The pipes
stay open until the child dies, so a client that waits for them to close never sees the exit.
argv[1] is a file to write "agent-pid child-pid" to.
"""

from __future__ import annotations

import subprocess
import sys

import wire

SESSION = "crash-child-1"

child = subprocess.Popen(["sleep", "300"])
wire.record_pid(sys.argv[1], child.pid)
while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        wire.say(SESSION, "working on it")
        wire.stderr("fatal: lost the model connection")
        sys.exit(3)
