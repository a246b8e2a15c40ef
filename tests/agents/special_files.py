"""Makes a file no client should read whole in its working directory and asks the client to read it:
prompt `fifo` makes a FIFO (a read that opens it blocks until someone writes), `sparse` a 1.5 GB sparse
file (a read that takes it whole takes gigabytes). Each answer comes back as an agent message.
"""

from __future__ import annotations

import json
import os
from typing import Any

import wire

SESSION = "special-1"
SPARSE_BYTES = 1536 * 1024 * 1024


def make(kind: str) -> str:
    path = os.path.join(os.getcwd(), f"{kind}-{os.getpid()}")
    if not os.path.exists(path):
        if kind == "fifo":
            os.mkfifo(path)
        else:
            with open(path, "wb") as handle:
                handle.truncate(SPARSE_BYTES)
    return path


def ask(request_id: str, path: str) -> dict[str, Any]:
    wire.request(request_id, "fs/read_text_file", {"sessionId": SESSION, "path": path})
    while (msg := wire.read()) is not None:
        if msg.get("id") == request_id and "method" not in msg:
            return msg
    raise SystemExit(0)


count = 0
while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        count += 1
        reply = ask(f"read-{count}", make(wire.prompt_text(msg).strip()))
        wire.say(SESSION, "ANSWER " + json.dumps({k: reply[k] for k in ("result", "error") if k in reply}))
        wire.respond(msg, {"stopReason": "end_turn"})
