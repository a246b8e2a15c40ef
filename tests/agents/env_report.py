"""Reports what it was started with: writes its environment and each `session/new`'s mcpServers to the
JSON file named by argv[1], and keeps the sessions it served for `session/list`.

argv[2] (optional) is how many seconds `session/new` takes to answer, as claude-agent-acp's ~1.5 s;
argv[3] (optional, default 1) the first `session/new` that is slow (2: the server's own first session
opens at once, a test waits only for the one it opens).
A session is listed only once a prompt gave it a title (the prompt's text), as real agents store a
conversation only after its first turn. Each prompt is answered with "reported to <file>". A prompt
"rename TITLE" renames the session after its turn, as codex-acp does: once the client has listed the
sessions after the turn, the agent stores the new title and says so in a `session_info_update`.
"""

from __future__ import annotations

import json
import os
import sys
import time

import wire

REPORT = sys.argv[1]
NEW_DELAY = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
SLOW_FROM = int(sys.argv[3]) if len(sys.argv) > 3 else 1
stored: dict[str, str] = {}
report: dict[str, object] = {"env": dict(os.environ), "mcpServers": []}


def save() -> None:
    with open(REPORT + ".tmp", "w") as out:
        json.dump(report, out)
    os.replace(REPORT + ".tmp", REPORT)


save()
count = 0
while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        caps: dict[str, object] = {"promptCapabilities": {}, "sessionCapabilities": {"list": {}}}
        if os.environ.get("REPORT_MCP_HTTP"):  # advertise MCP over HTTP when the test asks for it
            caps["mcpCapabilities"] = {"http": True}
        wire.respond(msg, wire.initialize_result(agentCapabilities=caps))
    elif method == "session/new":
        count += 1
        if count >= SLOW_FROM:
            time.sleep(NEW_DELAY)  # a slow agent: the client must not treat the session as open yet
        report["mcpServers"] = msg["params"].get("mcpServers")
        save()
        wire.respond(msg, {"sessionId": f"env-{count}"})
    elif method == "session/list":
        sessions = [{"sessionId": sid, "title": title} for sid, title in stored.items()]
        wire.respond(msg, {"sessions": sessions})
    elif method == "session/prompt":
        session = msg["params"]["sessionId"]
        text = wire.prompt_text(msg)
        stored.setdefault(session, text)
        wire.say(session, f"reported to {os.path.basename(REPORT)}")
        wire.respond(msg, {"stopReason": "end_turn"})
        if text.startswith("rename "):
            while (listing := wire.read()) is not None and listing.get("method") != "session/list":
                pass  # nothing else arrives between the end of the turn and the client's list
            if listing is not None:
                wire.respond(listing, {"sessions": [{"sessionId": k, "title": v} for k, v in stored.items()]})
            stored[session] = text.removeprefix("rename ")
            wire.update(session, {"sessionUpdate": "session_info_update", "title": stored[session]})
