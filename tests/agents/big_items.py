"""Heavy but legal single messages, one per prompt word, each answered before `end_turn`:

- `diff`: a tool call whose diff changes 100,000 short lines (about 0.5 MB a side);
- `write PATH`: the same change as `fs/write_text_file` of PATH (answered `ANSWER ok` or the error);
- `suggestions`: a list of 20,000 suggestions of about 600 characters;
- `long-suggestion`: a short suggestion, and one of 5,000,000 characters;
- `user-chunk`: a user message chunk of 5 MB (as a replay sends);
- `deep`: an agent message chunk whose content's `_meta` is nested 800 levels deep.
"""

from __future__ import annotations

import wire

SESSION = "big-1"
OLD = "".join(f"line {n % 7}\n" for n in range(100_000))
NEW = "".join(f"line {n % 5}\n" for n in range(100_000))


def suggestion(text: str) -> dict[str, object]:
    return {"prompt": [{"type": "text", "text": text}]}


while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        wire.respond(msg, {"sessionId": SESSION})
    elif method == "session/prompt":
        word, _, arg = wire.prompt_text(msg).partition(" ")
        if word == "diff":
            content = [{"type": "diff", "path": "/w/big.txt", "oldText": OLD, "newText": NEW}]
            body = {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "big edit", "kind": "edit"}
            wire.update(SESSION, {**body, "status": "completed", "content": content})
        elif word == "write":
            wire.request("w1", "fs/write_text_file", {"sessionId": SESSION, "path": arg, "content": NEW})
            while (answer := wire.read()) is not None and answer.get("id") != "w1":
                pass
            wire.say(SESSION, "ANSWER " + ("ok" if answer and "result" in answer else repr(answer)))
        elif word == "suggestions":
            entries = [suggestion(f"{n:05} " + "s" * 600) for n in range(20_000)]
            wire.update(SESSION, {"sessionUpdate": "prompt_suggestions_update", "suggestions": entries})
        elif word == "long-suggestion":
            entries = [suggestion("short one"), suggestion("L" * 5_000_000)]
            wire.update(SESSION, {"sessionUpdate": "prompt_suggestions_update", "suggestions": entries})
        elif word == "user-chunk":
            chunk = {"type": "text", "text": "u" * 5_000_000}
            wire.update(SESSION, {"sessionUpdate": "user_message_chunk", "content": chunk})
        elif word == "deep":
            deep: dict[str, object] = {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "deep "},
            }
            params = {"sessionId": SESSION, "update": deep}
            message = {"jsonrpc": "2.0", "method": "session/update", "params": params}
            wire.write_with_raw(message, "_meta", wire.nested(800))
        wire.say(SESSION, f"done {word}")
        wire.respond(msg, {"stopReason": "end_turn"})
