"""Sends text with lone UTF-16 surrogates, as a JavaScript agent that cuts a string inside an emoji does.

`session/list` offers a stored session whose title ends in half an emoji; each prompt is answered with a
chunk that does too, and a `session_info_update` whose title starts with the other half, alone.
"""

from __future__ import annotations

import wire

SESSION = "broken-1"
HALF_EMOJI = "\ud83d"  # the high half of U+1F600; json.dumps writes it as the escape \ud83d
OTHER_HALF = "\ude00"

while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        caps: dict[str, object] = {"promptCapabilities": {}, "sessionCapabilities": {"list": {}}}
        wire.respond(msg, wire.initialize_result(agentCapabilities=caps))
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/list":
        wire.respond(msg, {"sessions": [{"sessionId": "stored-1", "title": f"stored {HALF_EMOJI}"}]})
    elif method == "session/prompt":
        wire.say(SESSION, f"cut here {HALF_EMOJI}, and here {OTHER_HALF}.")
        wire.update(SESSION, {"sessionUpdate": "session_info_update", "title": f"{OTHER_HALF} title"})
        wire.respond(msg, {"stopReason": "end_turn"})
