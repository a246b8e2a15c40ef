"""A minimal agent that is not the demo: it offers two slash commands and echoes each prompt."""

from __future__ import annotations

import wire

SESSION = "commands-1"
COMMANDS = [
    {"name": "review", "description": "Review the staged changes", "input": {"hint": "what to look at"}},
    {"name": "compact", "description": "Summarise the conversation so far"},
]

while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
        wire.update(SESSION, {"sessionUpdate": "available_commands_update", "availableCommands": COMMANDS})
    elif method == "session/prompt":
        wire.say(SESSION, "You said: " + wire.prompt_text(msg))
        wire.respond(msg, {"stopReason": "end_turn"})
