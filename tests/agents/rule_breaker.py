"""Breaks one Agent rule of the prompt-suggestions RFD that a client can observe; argv[1] picks which.

Each mode keeps every other rule: it sends lists only to a client that advertised `promptSuggestions`
(except `unadvertised`), predicts a text list after each turn and replaces it at the next prompt.

- `unadvertised`: sends a list on every turn, whatever the client advertised.
- `stale`: sends a list on the first turn and never replaces or withdraws it after later prompts.
- `blank`: sends an empty and a whitespace-only suggestion beside a good one.
- `types`: sends image, audio and embedded-resource suggestions beside a good one, although neither side
  advertised those types (its promptCapabilities are all false).
- `malformed`: sends an update whose `suggestions` is not a list (the update's shape).
- `bad_prompt`: sends a suggestion whose resource_link has no URI scheme beside a good one.
- `late`: at each new prompt withdraws the list, then sends the previous turn's prediction again.
- `replay`: supports `session/load` and puts a suggestion list into the replay.
- `unknown_session`: sends its lists for a session that does not exist.
- `wrong_session`: sends each prediction to the session opened last, not the one prompted.

Every update goes out BEFORE the `session/prompt` response, so the client has seen it when the turn ends.
"""

from __future__ import annotations

import sys
from typing import Any

import wire

MODE = sys.argv[1]
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAAAASUVORK5CYII="


def suggestions(session_id: str, *entries: object) -> None:
    wire.update(session_id, {"sessionUpdate": "prompt_suggestions_update", "suggestions": list(entries)})


def text(value: str) -> dict[str, object]:
    return {"prompt": [{"type": "text", "text": value}]}


def advertised(params: Any) -> bool:
    session = (params.get("clientCapabilities") or {}).get("session")
    return isinstance(session, dict) and isinstance(session.get("promptSuggestions"), dict)


sessions: list[str] = []
offered: dict[str, str] = {}  # session -> the text of its current non-empty list
turn = 0
may_suggest = False
while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        may_suggest = MODE == "unadvertised" or advertised(msg.get("params") or {})
        caps = {
            "loadSession": MODE == "replay",
            "promptCapabilities": {"image": False, "audio": False, "embeddedContext": False},
        }
        wire.respond(msg, wire.initialize_result(agentCapabilities=caps))
    elif method == "session/new":
        sessions.append(f"breaker-{len(sessions) + 1}")
        wire.respond(msg, {"sessionId": sessions[-1]})
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
        sid = msg["params"]["sessionId"]
        target = {"unknown_session": "nobody-9", "wrong_session": sessions[-1]}.get(MODE, sid)
        previous = offered.get(sid)
        if may_suggest and previous is not None and MODE != "stale":
            suggestions(sid)  # withdraw the list of the last turn
            offered.pop(sid)
            if MODE == "late":
                suggestions(sid, text(previous))  # ... then the prediction for that turn, again
        wire.say(sid, f"answer {turn}")
        prediction = "never withdrawn" if MODE == "stale" else "good one"
        if not may_suggest or (MODE == "stale" and turn > 1):
            pass
        elif MODE == "blank":
            suggestions(sid, text(""), text("  \n\t"), text(prediction))
        elif MODE == "types":
            suggestions(
                sid,
                {
                    "prompt": [
                        {"type": "text", "text": "see "},
                        {"type": "image", "mimeType": "image/png", "data": PNG},
                    ]
                },
                {"prompt": [{"type": "audio", "mimeType": "audio/wav", "data": "UklGRg=="}]},
                {"prompt": [{"type": "resource", "resource": {"uri": "file:///a.txt", "text": "hi"}}]},
                text(prediction),
            )
        elif MODE == "malformed":
            wire.update(sid, {"sessionUpdate": "prompt_suggestions_update", "suggestions": {"not": "a list"}})
        elif MODE == "bad_prompt":
            link = {"type": "resource_link", "name": "notes", "uri": "notes.txt"}
            suggestions(sid, {"prompt": [link]}, text(prediction))
        else:
            suggestions(target, text(prediction))
        if may_suggest and target == sid and MODE not in ("malformed",):
            offered[sid] = prediction
        wire.respond(msg, {"stopReason": "end_turn"})
