"""Breaks one Agent rule of the prompt-suggestions RFD that a client can observe; argv[1] picks which.

- `unadvertised`: sends a list on every turn, whatever the client advertised.
- `stale`: sends a list on the first turn and never replaces or withdraws it after later prompts.
- `blank`: sends an empty and a whitespace-only suggestion beside a good one.
- `types`: sends image, audio and embedded-resource suggestions beside a good one, although neither side
  advertised those types (its promptCapabilities are all false).
- `replay`: supports `session/load` and puts a suggestion list into the replay.
- `unknown_session`: sends a list for a session that does not exist.

Every update goes out BEFORE the `session/prompt` response, so the client has seen it when the turn ends.
"""

from __future__ import annotations

import sys

import wire

MODE = sys.argv[1]
SESSION = "breaker-1"
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def suggestions(session_id: str, *entries: object) -> None:
    wire.update(session_id, {"sessionUpdate": "prompt_suggestions_update", "suggestions": list(entries)})


def text(value: str) -> dict[str, object]:
    return {"prompt": [{"type": "text", "text": value}]}


turn = 0
while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        caps = {
            "loadSession": MODE == "replay",
            "promptCapabilities": {"image": False, "audio": False, "embeddedContext": False},
        }
        wire.respond(msg, wire.initialize_result(agentCapabilities=caps))
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/load":
        sid = msg["params"]["sessionId"]
        wire.update(
            sid, {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "old question"}}
        )
        wire.update(
            sid, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "old answer"}}
        )
        suggestions(sid, text("replayed suggestion"))
        wire.respond(msg, {})
    elif method == "session/prompt":
        turn += 1
        if MODE == "unadvertised":
            suggestions(SESSION, text(f"unasked {turn}"))
        elif MODE == "stale" and turn == 1:
            suggestions(SESSION, text("never withdrawn"))
        elif MODE == "blank":
            suggestions(SESSION, text(""), text("  \n\t"), text("good one"))
        elif MODE == "types":
            suggestions(
                SESSION,
                {
                    "prompt": [
                        {"type": "text", "text": "see "},
                        {"type": "image", "mimeType": "image/png", "data": PNG},
                    ]
                },
                {"prompt": [{"type": "audio", "mimeType": "audio/wav", "data": "UklGRg=="}]},
                {"prompt": [{"type": "resource", "resource": {"uri": "file:///a.txt", "text": "hi"}}]},
                text("good one"),
            )
        elif MODE == "unknown_session":
            suggestions("nobody-9", text("for nobody"))
        wire.say(SESSION, f"answer {turn}")
        wire.respond(msg, {"stopReason": "end_turn"})
