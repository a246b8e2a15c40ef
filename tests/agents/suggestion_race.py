"""A v1 agent that replaces and withdraws its suggestion lists in quick bursts around the end of a turn.

The sequence that once left a finished turn looking stuck in the page (status "working...", Cancel
shown, a withdrawn chip still offered) until some later event:

- any prompt: `[]`, the answer "You said: ...", `end_turn`, then the list `["Pick one", "Pick two"]`, the
  second with a file (its chip opens on a first click and sends on the second);
- `replace`: `[]`, a chunk, `["First A", "First B"]`, 0.3 s later `["Second C"]`, then `end_turn`;
- `withdraw`: `[]`, the chunk "ok withdraw", `["Soon gone"]`, 0.3 s later `[]`, then `end_turn`.

Each `session/new` opens a session of its own, so one agent serves many runs of the sequence.
"""

from __future__ import annotations

import time
from typing import Any

import wire


def offer(session_id: str, *texts: str, file_with: str = "") -> None:
    suggestions = [{"prompt": [{"type": "text", "text": t}]} for t in texts]
    for suggestion, text in zip(suggestions, texts, strict=True):
        if text == file_with:
            link = {"type": "resource_link", "name": "notes.txt", "uri": "file:///tmp/notes.txt"}
            suggestion["prompt"].append(link)
    wire.update(session_id, {"sessionUpdate": "prompt_suggestions_update", "suggestions": suggestions})


def turn(request: dict[str, Any]) -> None:
    sid = request["params"]["sessionId"]
    said = wire.prompt_text(request)
    offer(sid)  # a new prompt withdraws the list first, as the RFD asks
    if said == "replace":
        wire.say(sid, "ok replace")
        offer(sid, "First A", "First B")
        time.sleep(0.3)
        offer(sid, "Second C")
    elif said == "withdraw":
        wire.say(sid, "ok withdraw")
        offer(sid, "Soon gone")
        time.sleep(0.3)
        offer(sid)
    else:
        wire.say(sid, f"You said: {said}")
        wire.respond(request, {"stopReason": "end_turn"})
        # After the answer, as claude-agent-acp sends its suggestions.
        offer(sid, "Pick one", "Pick two", file_with="Pick two")
        return
    wire.respond(request, {"stopReason": "end_turn"})


wire.serve(turn, sessions="race")
