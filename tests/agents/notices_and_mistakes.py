"""Behaves, but for two things a check reports apart: each turn sends an update of a kind no client knows
(ignored: a notice, no mistake) and writes one line that is not JSON-RPC (a protocol mistake: a warning).
"""

from __future__ import annotations

import sys
from typing import Any

import wire


def turn(msg: dict[str, Any]) -> None:
    session = msg["params"]["sessionId"]
    wire.update(session, {"sessionUpdate": "_example_progress", "percent": 50})
    sys.stdout.write("debug: thinking\n")
    sys.stdout.flush()
    wire.say(session, "done")
    wire.respond(msg, {"stopReason": "end_turn"})


wire.serve(turn, sessions="notices")
