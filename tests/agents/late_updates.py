"""Sends updates after it answered `session/prompt`, and uses a string id for its own request.

On `session/prompt` it first answers `end_turn`, then streams a chunk and a `session_info_update` title,
then asks `session/request_permission` with the JSON-RPC id "perm-abc". When the client's answer
arrives it reports, as another agent message, the id it came with and the outcome.
"""

from __future__ import annotations

import wire

SESSION = "late-1"
PERMISSION_ID = "perm-abc"

while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method is None:  # a response: the client's answer to our permission request
        outcome = (msg.get("result") or {}).get("outcome") or {"outcome": f"error {msg.get('error')}"}
        same = "yes" if msg.get("id") == PERMISSION_ID else "no"
        option = f" option={outcome['optionId']}" if "optionId" in outcome else ""
        report = f"id={msg.get('id')} same-id={same} outcome={outcome['outcome']}{option}"
        wire.say(SESSION, f"permission answer {report}")
    elif method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        wire.respond(msg, {"stopReason": "end_turn"})
        wire.say(SESSION, "a late chunk after the response")
        wire.update(SESSION, {"sessionUpdate": "session_info_update", "title": "A title sent late"})
        wire.request(
            PERMISSION_ID,
            "session/request_permission",
            {
                "sessionId": SESSION,
                "toolCall": {"toolCallId": "call-1", "title": "rm -rf build"},
                "options": [
                    {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "deny", "name": "Deny", "kind": "reject_once"},
                ],
            },
        )
