"""Tiny raw JSON-RPC helpers for the scripted test agents: one line in, one line out, no SDK.

The scripted agents misbehave on purpose, which the SDK's agent side would not let them do.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any


def read() -> dict[str, Any] | None:
    """The next message from the client, or None when stdin closes.

    With `WIRE_RECORD` set, the params of each `initialize` are appended to that file (one JSON line)."""
    while True:
        line = sys.stdin.readline()
        if not line:
            return None
        if line.strip():
            message: dict[str, Any] = json.loads(line)
            _record_initialize(message)
            return message


def _record_initialize(message: dict[str, Any]) -> None:
    import os

    path = os.environ.get("WIRE_RECORD")
    if path and message.get("method") == "initialize":
        with open(path, "a") as f:
            f.write(json.dumps(message.get("params")) + "\n")


def write(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def nested(levels: int) -> str:
    """JSON nested `levels` deep, written out by hand (json.dumps would hit this process's own limit)."""
    return '{"x":[' * (levels // 2) + '"bottom"' + "]}" * (levels // 2)


def write_with_raw(message: dict[str, Any], field: str, raw: str) -> None:
    """`message` with `field` of its innermost object set to the JSON text `raw`."""
    text = json.dumps(message)
    depth = len(text) - len(text.rstrip("}"))
    sys.stdout.write(text[:-depth] + f', "{field}": {raw}' + "}" * depth + "\n")
    sys.stdout.flush()


def respond(request: dict[str, Any], result: Any) -> None:
    write({"jsonrpc": "2.0", "id": request["id"], "result": result})


def error(request: dict[str, Any], code: int, message: str) -> None:
    write({"jsonrpc": "2.0", "id": request["id"], "error": {"code": code, "message": message}})


def update(session_id: str, body: dict[str, Any]) -> None:
    write({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session_id, "update": body}})


def say(session_id: str, text: str) -> None:
    update(session_id, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}})


def initialize_result(**extra: Any) -> dict[str, Any]:
    return {
        "protocolVersion": 1,
        "agentInfo": {"name": "scripted", "version": "0"},
        "agentCapabilities": {"promptCapabilities": {}},
        "authMethods": [],
        **extra,
    }


def prompt_text(request: dict[str, Any]) -> str:
    return "".join(b.get("text", "") for b in request["params"]["prompt"] if b.get("type") == "text")


def request(request_id: str | int, method: str, params: dict[str, Any]) -> None:
    """Send a request to the client (the agent side of `session/request_permission` and friends)."""
    write({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})


def record_pid(path: str | None, *pids: int) -> None:
    """Write this process's pid (and any others given) to `path`, so a test can check they are reaped."""
    if path:
        import os

        with open(path + ".tmp", "w") as f:
            f.write(" ".join(str(p) for p in (os.getpid(), *pids)))
        os.replace(path + ".tmp", path)  # atomic: a reader never sees half the pids


def stderr(*lines: str) -> None:
    sys.stderr.write("".join(line + "\n" for line in lines))
    sys.stderr.flush()


def serve(turn: Callable[[dict[str, Any]], None], *, sessions: str) -> None:
    """The usual agent, until stdin closes: it answers `initialize`, opens a session of its own for each
    `session/new` (`<sessions>-1`, `<sessions>-2`, ...), hands each `session/prompt` to `turn` (which
    answers it) and refuses any other request."""
    opened = 0
    while (msg := read()) is not None:
        method = msg.get("method")
        if method == "initialize":
            respond(msg, initialize_result())
        elif method == "session/new":
            opened += 1
            respond(msg, {"sessionId": f"{sessions}-{opened}"})
        elif method == "session/prompt":
            turn(msg)
        elif "id" in msg and "method" in msg:
            error(msg, -32601, f"method not found: {method}")
