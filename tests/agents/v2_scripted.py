"""A scripted ACP v2 agent: each prompt's text names what it does, so one process serves a whole test.

It answers `initialize` with version 2 (any other offer gets its version-1 answer, like a v2 agent that
also speaks v1 would not: it answers 2 only when offered 2). `V2_RECORD`: a file the `initialize`
params are written to. `V2_AUTH=1`: `session/new` needs `auth/login` first.

Prompts: `hello`, `upserts`, `terminal`, `unknown`, `batch`, `slow` (ends only when the next prompt
arrives, which it queues), `permission`, `command-permission`, `cancel` (runs until `session/cancel`),
`cancel-request` (asks a permission, then withdraws it with `$/cancel_request`), `refuse`, and
`content N RATE [#tag]` (for the benchmark: a tool call given N stamped lines of content at RATE a second,
one `tool_call_content_chunk` each, then the end marker `‖#tag`).
`V2_CLOSE_DELAY`: seconds to wait before answering `session/close`.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import wire

SESSION = "v2-1"
STORED = "v2-stored"
state: dict[str, Any] = {"authed": os.environ.get("V2_AUTH") != "1", "slow": None, "cancel": None, "n": 0}


def send(message: dict[str, Any] | list[dict[str, Any]]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def note(body: dict[str, Any], session: str = SESSION) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": body}}


def up(body: dict[str, Any], session: str = SESSION) -> None:
    send(note(body, session))


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def chunk(message_id: str, value: str, kind: str = "agent_message_chunk") -> None:
    up({"sessionUpdate": kind, "messageId": message_id, "content": text(value)})


def next_id(prefix: str) -> str:
    state["n"] += 1
    return f"{prefix}{state['n']}"


def insert_user(request: dict[str, Any]) -> None:
    up({"sessionUpdate": "user_message", "messageId": next_id("u"), "content": request["params"]["prompt"]})


def begin(request: dict[str, Any]) -> None:
    wire.respond(request, {})
    insert_user(request)
    up({"sessionUpdate": "state_update", "state": "running"})


def idle(reason: str | None = "end_turn") -> None:
    up({"sessionUpdate": "state_update", "state": "idle", "stopReason": reason})


def suggest(*texts: str, session: str = SESSION) -> None:
    suggestions = [{"prompt": [text(t)]} for t in texts]
    up({"sessionUpdate": "prompt_suggestions_update", "suggestions": suggestions}, session)


# --- scenarios ---------------------------------------------------------------------------------------


def hello(request: dict[str, Any]) -> None:
    begin(request)
    message = next_id("a")
    chunk(message, "Hello ")
    chunk(message, "from v2.")
    idle()
    suggest("Tell me more", "Run the tests")


def upserts(request: dict[str, Any]) -> None:
    begin(request)
    up({"sessionUpdate": "agent_message", "messageId": "m1", "content": [text("A")]})
    chunk("m1", "B")  # appends to the whole message: AB
    chunk("m2", "one ")
    chunk("m1", "+")  # an earlier message, by its id: AB+
    chunk("m2", "two")
    up({"sessionUpdate": "agent_message", "messageId": "m3", "content": [text("gone")]})
    up({"sessionUpdate": "agent_message", "messageId": "m3", "content": None})  # cleared
    up({"sessionUpdate": "agent_message", "messageId": "m2"})  # omitted: unchanged
    tool = {"sessionUpdate": "tool_call_update", "toolCallId": "t1"}
    up({**tool, "title": "Read parser.py", "kind": "read", "status": "in_progress", "rawInput": {"p": 1}})
    up({**tool, "status": "completed"})  # the title stays
    up({**tool, "rawInput": None})  # cleared
    item = {"type": "content", "content": text("line 1")}
    up({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "t1", "content": item})
    item2 = {"type": "content", "content": text("line 2")}
    up({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "t1", "content": item2})
    entry = {"content": "Fix parser", "priority": "high", "status": "in_progress"}
    up({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "p1", "entries": [entry]}})
    other = {"content": "Write docs", "priority": "low", "status": "pending"}
    up({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "p2", "entries": [other]}})
    done = {**entry, "status": "completed"}
    up({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "p1", "entries": [done]}})
    idle()


def terminal(request: dict[str, Any]) -> None:
    begin(request)
    up({"sessionUpdate": "tool_call_update", "toolCallId": "t-run", "title": "Run tests", "kind": "execute"})
    ref = {"type": "terminal", "terminalId": "term-1"}
    up({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "t-run", "content": ref})
    up({"sessionUpdate": "terminal_update", "terminalId": "term-1", "command": "pytest -q"})
    data = "passed ✓\n".encode()
    split = data.index("✓".encode()) + 1  # inside the three bytes of the check mark
    for part in (data[:split], data[split:]):
        up({"sessionUpdate": "terminal_output_chunk", "terminalId": "term-1", "data": b64(part)})
    up({"sessionUpdate": "terminal_update", "terminalId": "term-1", "exitStatus": {"exitCode": 0}})
    diff = {
        "type": "diff",
        "changes": [{"operation": "modify", "path": "/w/app.py"}],
        "patch": {"format": "git_patch", "text": "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-old\n+new\n"},
    }
    up({"sessionUpdate": "tool_call_update", "toolCallId": "t-edit", "title": "Edit", "content": [diff]})
    idle()


def content(request: dict[str, Any], n: int, rate: float, tag: str) -> None:
    """A tool call's content streamed as it is produced, a stamped line a chunk (the streaming benchmark)."""
    begin(request)
    tool = {"sessionUpdate": "tool_call_update", "toolCallId": "t-read"}
    up({**tool, "title": "Read", "status": "in_progress"})
    start = time.monotonic()
    for i in range(n):
        delay = start + i / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        item = {"type": "content", "content": text(f"line {i} [t={time.time() * 1000:.3f}]")}
        up({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "t-read", "content": item})
    up({**tool, "status": "completed"})
    chunk(next_id("a"), "\u2016" + tag)
    idle()


def unknown(request: dict[str, Any]) -> None:
    begin(request)
    up({"sessionUpdate": "future_thing", "whatever": 1})
    up({"sessionUpdate": "state_update", "state": "_paused"})
    up({"sessionUpdate": "tool_call_update", "toolCallId": "t9", "kind": "_teleport", "status": "_warping"})
    chunk(next_id("a"), "still here")
    idle("_vendor_reason")


def batch(request: dict[str, Any]) -> None:
    wire.respond(request, {})
    message = next_id("a")
    ask = {
        "jsonrpc": "2.0",
        "id": "batch-perm",
        "method": "session/request_permission",
        "params": {
            "sessionId": SESSION,
            "title": "Allow the batch?",
            "options": [{"optionId": "yes", "name": "Yes", "kind": "allow_once"}],
        },
    }
    send(
        [
            note(
                {
                    "sessionUpdate": "user_message",
                    "messageId": next_id("u"),
                    "content": request["params"]["prompt"],
                }
            ),
            note({"sessionUpdate": "state_update", "state": "running"}),
            note({"sessionUpdate": "agent_message_chunk", "messageId": message, "content": text("in ")}),
            note({"sessionUpdate": "agent_message_chunk", "messageId": message, "content": text("a batch")}),
            ask,
        ]
    )
    state["batch"] = message


def batch_answered(answer: Any) -> None:
    shape = "an array" if isinstance(answer, list) else type(answer).__name__
    ids = [a.get("id") for a in answer] if isinstance(answer, list) else []
    chunk(state.pop("batch"), f" (answered as {shape} {ids})")
    idle()


def slow(request: dict[str, Any]) -> None:
    begin(request)
    state["slow"] = next_id("a")
    chunk(state["slow"], "working slowly")


def finish_slow(queued: dict[str, Any]) -> None:
    wire.respond(queued, {})  # accepted at once: it waits behind the running work
    chunk(state["slow"], ", done")
    state["slow"] = None
    idle()
    insert_user(queued)
    up({"sessionUpdate": "state_update", "state": "running"})
    chunk(next_id("a"), "the queued prompt ran")
    idle()


def permission(request: dict[str, Any], subject: dict[str, Any]) -> None:
    begin(request)
    up({"sessionUpdate": "tool_call_update", "toolCallId": "t-perm", "title": "Edit app.py", "kind": "edit"})
    up({"sessionUpdate": "state_update", "state": "requires_action"})
    params = {
        "sessionId": SESSION,
        "title": "Change app.py?",
        "description": "The agent wants to rewrite main().",
        "subject": subject,
        "options": [
            {"optionId": "ok", "name": "Allow once", "kind": "allow_once"},
            {"optionId": "no", "name": "Deny", "kind": "reject_once"},
        ],
    }
    wire.request("perm-1", "session/request_permission", params)


def permission_answered(answer: dict[str, Any]) -> None:
    up({"sessionUpdate": "state_update", "state": "running"})
    outcome = (answer.get("result") or {}).get("outcome") or {"outcome": f"error {answer.get('error')}"}
    chunk(next_id("a"), f"permission: {outcome.get('optionId') or outcome['outcome']}")
    idle()


def cancel_request(request: dict[str, Any]) -> None:
    begin(request)
    params = {"sessionId": SESSION, "title": "Soon withdrawn", "options": [{"optionId": "ok", "name": "OK"}]}
    wire.request("perm-2", "session/request_permission", params)
    send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": "perm-2"}})


def cancel_request_answered(answer: dict[str, Any]) -> None:
    code = (answer.get("error") or {}).get("code")
    chunk(next_id("a"), f"withdrawn request answered with code {code}")
    idle()


def initialize(request: dict[str, Any]) -> None:
    record = os.environ.get("V2_RECORD")
    if record:
        with open(record, "a") as f:
            f.write(json.dumps(request["params"]) + "\n")
    if request["params"].get("protocolVersion") != 2:
        wire.respond(request, wire.initialize_result())
        return
    methods = [{"methodId": "agent-login", "type": "agent", "name": "Log in"}] if not state["authed"] else []
    wire.respond(
        request,
        {
            "protocolVersion": 2,
            "info": {"name": "scripted-v2", "title": "Scripted v2", "version": "2.0"},
            "capabilities": {"session": {"prompt": {"image": {}}, "delete": {}}},
            "authMethods": methods,
        },
    )


def resume(request: dict[str, Any]) -> None:
    session = request["params"]["sessionId"]
    if request["params"].get("replayFrom") == {"type": "start"}:
        up(
            {"sessionUpdate": "user_message", "messageId": "h1", "content": [text("an old question")]},
            session,
        )
        up({"sessionUpdate": "agent_message", "messageId": "h2", "content": [text("an old answer")]}, session)
    suggest("from before the resume answer", session=session)  # never offered: before the answer
    wire.respond(request, {"configOptions": config_options()})


def config_options() -> list[dict[str, Any]]:
    if "options" not in state:
        state["options"] = initial_options()
    return state["options"]  # type: ignore[no-any-return]


def initial_options() -> list[dict[str, Any]]:
    return [
        {
            "configId": "mode",
            "name": "Mode",
            "category": "mode",
            "type": "select",
            "currentValue": "ask",
            "options": [{"value": "ask", "name": "Ask"}, {"value": "code", "name": "Code"}],
        },
        {"configId": "brave", "name": "Brave", "type": "boolean", "currentValue": False},
        {"configId": "future", "name": "Future", "type": "_slider", "currentValue": 3},
    ]


def set_config(request: dict[str, Any]) -> None:
    params = request["params"]
    options = config_options()
    for option in options:
        if option["configId"] == params["configId"]:
            option["currentValue"] = params["value"]
    chunk(next_id("a"), f"set {params['configId']} with type {params.get('type')!r}")
    wire.respond(request, {"configOptions": options})


def prompt(request: dict[str, Any]) -> None:
    said = wire.prompt_text(request)
    if state["cancel"] is not None:  # a turn runs until cancelled: this one waits behind it
        wire.respond(request, {})
        state["queued"] = request
    elif state["slow"] is not None:
        finish_slow(request)
    elif said == "refuse":
        wire.error(request, -32602, "this prompt is refused")
    elif said == "permission":
        permission(request, {"type": "tool_call", "toolCall": {"toolCallId": "t-perm", "status": "pending"}})
    elif said == "command-permission":
        permission(request, {"type": "command", "command": "rm -rf build", "cwd": "/w"})
    elif said == "cancel":
        begin(request)
        state["cancel"] = message_id = next_id("a")
        up(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "t-long",
                "title": "Long",
                "status": "in_progress",
            }
        )
        chunk(message_id, "running until cancelled")
    elif said.startswith("content "):
        _, n, rate, *tag = said.split()
        content(request, int(n), float(rate), tag[0] if tag else "")
    elif said == "quiet":  # leaves the earlier list standing: breaks the RFD's replace-or-withdraw rule
        begin(request)
        chunk(next_id("a"), "no new list")
        idle()
    else:
        scenario = {
            "upserts": upserts,
            "terminal": terminal,
            "unknown": unknown,
            "batch": batch,
            "slow": slow,
            "cancel-request": cancel_request,
        }.get(said, hello)
        scenario(request)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def answer(message: Any) -> None:
    """A response from the client, to one of our requests (or an array: a batch's answers)."""
    if isinstance(message, list) or "batch" in state:
        batch_answered(message)
    elif message.get("id") == "perm-2":
        cancel_request_answered(message)
    else:
        permission_answered(message)


def login(msg: dict[str, Any]) -> None:
    state["authed"] = True
    wire.respond(msg, {})


def logout(msg: dict[str, Any]) -> None:
    state["authed"] = False
    wire.respond(msg, {})


def new_session(msg: dict[str, Any]) -> None:
    if state["authed"]:
        wire.respond(msg, {"sessionId": SESSION, "configOptions": config_options()})
    else:
        wire.error(msg, -32000, "authentication required")


def cancel(_msg: dict[str, Any]) -> None:
    if state["cancel"] is not None:
        chunk(state["cancel"], ", stopped")
        state["cancel"] = None
        state.pop("queued", None)  # a queued prompt is dropped with the work: never inserted
        idle("cancelled")


def list_sessions(msg: dict[str, Any]) -> None:
    stored = (
        [] if state.get("deleted") else [{"sessionId": STORED, "cwd": "/w", "title": "Stored v2 session"}]
    )
    wire.respond(msg, {"sessions": stored})


def delete(msg: dict[str, Any]) -> None:
    state["deleted"] = msg["params"]["sessionId"] == STORED
    wire.respond(msg, {})


def close(msg: dict[str, Any]) -> None:
    time.sleep(float(os.environ.get("V2_CLOSE_DELAY", "0")))  # a slow agent: the client waits meanwhile
    wire.respond(msg, {})


HANDLERS: dict[str, Callable[[dict[str, Any]], None]] = {
    "initialize": initialize,
    "auth/login": login,
    "auth/logout": logout,
    "session/new": new_session,
    "session/prompt": prompt,
    "session/cancel": cancel,
    "session/resume": resume,
    "session/list": list_sessions,
    "session/delete": delete,
    "session/close": close,
    "session/set_config_option": set_config,
}


def serve(msg: dict[str, Any]) -> None:
    handler = HANDLERS.get(str(msg.get("method")))
    if handler is not None:
        handler(msg)
    elif "id" in msg:
        wire.error(msg, -32601, f"method not found: {msg.get('method')}")


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if isinstance(message, dict) and "method" in message:
            serve(message)
        else:
            answer(message)


main()
