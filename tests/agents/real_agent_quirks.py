"""Sends what real agents were seen to send, all in one turn.

`session/new` answers with both `modes` and a config option of category `mode` (claude-agent-acp,
codex-acp, qwen-code). A prompt gets: an empty text chunk (qwen-code, with its usage data), a tool call
whose command output comes only in `_meta.terminal_output_delta` and `terminal_exit` for a terminal the
client never created (codex-acp), and an edit permission request that carries the proposed diff and a
location without a line, for a tool call never sent before (qwen-code, opencode). Then it says "done".
"""

from __future__ import annotations

from typing import Any

import wire

SESSION = "quirks-1"
MODES = {
    "currentModeId": "default",
    "availableModes": [{"id": "default", "name": "Default"}, {"id": "plan", "name": "Plan"}],
}
MODE_OPTION = {
    "id": "mode",
    "name": "Mode",
    "type": "select",
    "category": "mode",
    "currentValue": "default",
    "options": [{"value": "default", "name": "Default"}, {"value": "plan", "name": "Plan"}],
}
OPTIONS = [
    {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
]


def tool_update(body: dict[str, Any]) -> None:
    wire.update(SESSION, {"sessionUpdate": "tool_call_update", "toolCallId": "exec-1", **body})


def turn(request: dict[str, Any]) -> None:
    wire.update(SESSION, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": ""}})
    wire.update(SESSION, {"sessionUpdate": "tool_call", "toolCallId": "exec-1", "title": "ls -a",
                          "kind": "execute", "status": "in_progress",
                          "content": [{"type": "terminal", "terminalId": "exec-1"}],
                          "_meta": {"terminal_info": {"terminal_id": "exec-1"}}})  # fmt: skip
    for data in (".\n..\n", "README.md\nsrc\n"):
        tool_update({"_meta": {"terminal_output_delta": {"terminal_id": "exec-1", "data": data}}})
    tool_update(
        {"status": "completed", "_meta": {"terminal_exit": {"terminal_id": "exec-1", "exit_code": 0}}}
    )
    diff = {
        "type": "diff",
        "path": "/w/notes.txt",
        "oldText": "remember the milk\n",
        "newText": "remember the oat milk\n",
    }
    tool = {"toolCallId": "edit-1", "title": "Edit notes.txt", "kind": "edit", "content": [diff],
            "locations": [{"path": "/w/notes.txt"}], "rawInput": {"path": "/w/notes.txt"}}  # fmt: skip
    wire.request(
        "perm-1", "session/request_permission", {"sessionId": SESSION, "toolCall": tool, "options": OPTIONS}
    )
    while (msg := wire.read()) is not None:
        if msg.get("id") == "perm-1" and "method" not in msg:
            break
    wire.update(SESSION, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": ""}})
    wire.say(SESSION, "done")
    wire.respond(request, {"stopReason": "end_turn"})


while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION, "modes": MODES, "configOptions": [MODE_OPTION]})
    elif method == "session/prompt":
        turn(msg)
