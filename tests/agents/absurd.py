"""Sends single malformed or absurd messages, each of which once left a session stuck with no notice.

`absurd.py VERSION START`: VERSION is the ACP version it answers (1 or 2); START what is wrong from the
start: `none`; `auth-number` (`authMethods` is a number); `args` (a terminal sign-in whose `args` is a
number); `vars` (session/new wants a sign-in, by an env_var method with a variable named `A=B`);
`vars-object` (the same, its variables an object); `modes` (v1: `availableModes` is a number).
Prompt words: `deep` (an update, and the prompt's answer, nested 900 levels deep), `array-id` (a response
and a request whose ids are arrays), `cost` (v2: a usage update whose cost has 4000 digits), anything
else: just the reply. Every turn ends with the reply "still here after <word>".
"""

from __future__ import annotations

import os
import sys
from typing import Any

import wire

VERSION = int(sys.argv[1])
START = sys.argv[2]
SESSION = "absurd-1"
turns: list[str] = []


def initialize_result() -> dict[str, Any]:
    methods: Any = []
    if START == "auth-number":
        methods = 5
    elif START == "args":
        methods = [{"methodId" if VERSION == 2 else "id": "t", "type": "terminal", "name": "T", "args": 7}]
    elif START == "vars":
        methods = [
            {"id": "key", "type": "env_var", "name": "Key", "vars": [{"name": "A=B"}, {"name": "API_KEY"}]}
        ]
    elif START == "vars-object":
        methods = [{"id": "object", "type": "env_var", "name": "Object vars", "vars": {"name": "KEY"}}]
    if VERSION == 2:
        caps: dict[str, object] = {"session": {}}
        return {
            "protocolVersion": 2,
            "info": {"name": "absurd"},
            "capabilities": caps,
            "authMethods": methods,
        }
    return wire.initialize_result(authMethods=methods)


def say(text: str) -> None:
    if VERSION == 2:
        body = {
            "sessionUpdate": "agent_message_chunk",
            "messageId": f"a{len(turns)}",
            "content": wire_text(text),
        }
        wire.update(SESSION, body)
    else:
        wire.say(SESSION, text)


def wire_text(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


def prompt(msg: dict[str, Any]) -> None:
    word = wire.prompt_text(msg)
    if VERSION == 2:  # the v2 agent accepts the prompt, inserts it in the transcript, and runs
        turns.append(word)
        wire.respond(msg, {})
        user = {
            "sessionUpdate": "user_message",
            "messageId": f"u{len(turns)}",
            "content": msg["params"]["prompt"],
        }
        wire.update(SESSION, user)
        wire.update(SESSION, {"sessionUpdate": "state_update", "state": "running"})
    if word == "deep":
        update = {"sessionUpdate": "agent_message_chunk", **({"messageId": "deep"} if VERSION == 2 else {})}
        wire.write_with_raw(wire_update(update), "content", wire.nested(900))
    elif word == "array-id":
        wire.write({"jsonrpc": "2.0", "id": [1], "result": {}})
        wire.write({"jsonrpc": "2.0", "id": [2], "method": "fs/read_text_file", "params": {"path": "/x"}})
    elif word == "cost":
        usage = {"sessionUpdate": "usage_update", "used": 10, "size": 100}
        wire.write_with_raw(wire_update(usage), "cost", '{"amount": ' + "9" * 4000 + ', "currency": "USD"}')
    say(f"still here after {word}")
    if VERSION == 2:
        wire.update(SESSION, {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
    elif word == "deep":
        wire.write_with_raw(
            {"jsonrpc": "2.0", "id": msg["id"], "result": {"stopReason": "end_turn"}},
            "_meta",
            wire.nested(900),
        )
    else:
        wire.respond(msg, {"stopReason": "end_turn"})


def wire_update(body: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": SESSION, "update": body}}


signed_in = not START.startswith("vars") or "API_KEY" in os.environ
while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, initialize_result())
    elif method == "authenticate":
        wire.respond(msg, {})
    elif method == "session/new":
        if not signed_in:
            signed_in = True  # the next start, with the variables set, gets a session
            wire.error(msg, -32000, "authentication required")
        elif START == "modes":
            wire.respond(msg, {"sessionId": SESSION, "modes": {"availableModes": 9, "currentModeId": "a"}})
        else:
            wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        prompt(msg)
    elif method == "session/close":
        wire.respond(msg, {})
