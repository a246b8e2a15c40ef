"""Speaks the pre-RFD suggestion channel, like claude-agent-acp 0.101.0.

Only when the client declared `clientCapabilities._meta.jetbrains.air` (an object), it sends one suggestion
per turn inside `session_info_update._meta.promptSuggestions`, about 60 ms AFTER the `session/prompt`
response. The prompt text picks the shape: "bare" sends a bare list of `{"text"}` entries, anything else
`{"suggestions": [...]}`. A prompt containing "real" first sends an RFD `prompt_suggestions_update`
(before the response), then the legacy key as usual, which the client must then ignore.
"""

from __future__ import annotations

import time

import wire

SESSION = "legacy-1"

air = False
turn = 0
while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        meta = ((msg.get("params") or {}).get("clientCapabilities") or {}).get("_meta") or {}
        air = isinstance((meta.get("jetbrains") or {}).get("air"), dict)
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        turn += 1
        text = wire.prompt_text(msg)
        if "real" in text:
            wire.update(
                SESSION,
                {
                    "sessionUpdate": "prompt_suggestions_update",
                    "suggestions": [{"prompt": [{"type": "text", "text": f"real suggestion {turn}"}]}],
                },
            )
        wire.say(SESSION, f"answer {turn}")
        wire.respond(msg, {"stopReason": "end_turn"})
        if air:
            time.sleep(0.06)
            entries = [{"text": f"legacy suggestion {turn}"}]
            value = entries if "bare" in text else {"suggestions": entries}
            wire.update(
                SESSION, {"sessionUpdate": "session_info_update", "_meta": {"promptSuggestions": value}}
            )
