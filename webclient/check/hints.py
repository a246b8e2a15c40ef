"""How to fix what a rule found: what to do instead, a minimal message that keeps the rule, the whole
offending message, and a link that opens that message in the playground (its share-link format).

The examples are whole `session/update` notifications an agent could send as they are; the link holds the
message in its fragment (`#v=1&t=…&types=…`), which a browser never sends to the server.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from webclient.check.recorder import WireLine
from webclient.check.rules import Verdict

# Where `webclient` serves its playground by default (its default port).
DEFAULT_PLAYGROUND = "http://127.0.0.1:8765/playground"
# A message longer than this many lines shows folded (the HTML report) or cut with a pointer (terminal).
FOLD_LINES = 24

_TEXT = {"type": "text", "text": "Run the tests"}
_LINK = {"type": "resource_link", "uri": "file:///work/project/tests/test_cart.py", "name": "test_cart.py"}
_ONE = {"prompt": [_TEXT]}


def _update(suggestions: list[Any], session: str = "SESSION_ID") -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {
            "sessionId": session,
            "update": {"sessionUpdate": "prompt_suggestions_update", "suggestions": suggestions},
        },
    }


# What to do, by rule id; and the minimal message that keeps the rule.
FIXES: dict[str, str] = {
    "gating.unadvertised": "Send prompt_suggestions_update only when the client's initialize declared "
    "session.promptSuggestions as an object; otherwise send nothing (not even an empty list).",
    "gating.types": "Use text and resource_link blocks, and image, audio or resource only when the "
    "client's promptSuggestions and your own promptCapabilities both name that type.",
    "shape.update": "Send suggestions as a list, empty to withdraw; _meta is an object or null.",
    "shape.prompt": "Give each suggestion a prompt list of at least one valid ContentBlock; a "
    "resource_link needs an absolute URI (with its scheme) and a name.",
    "shape.blank": "Leave out a suggestion with nothing to say; to offer none, send suggestions: [].",
    "lifetime.replace": "When you accept a session/prompt (v2: when you insert the user message), send "
    "the new list or withdraw the old one with suggestions: [] before the turn ends.",
    "lifetime.stale": "Tie each prediction to the turn it was made for, and drop it when a new "
    "session/prompt arrives before you sent it.",
    "replay.empty": "Replay the history without prompt_suggestions_update; send a fresh list after the "
    "next turn.",
    "session.id": "Name in sessionId the session the list is for: the one whose turn it predicts.",
    "legacy.meta": "Send the RFD's update to a client that advertises promptSuggestions; keep "
    "session_info_update._meta.promptSuggestions only for a client that looks for it, for one release.",
}
EXAMPLES: dict[str, dict[str, Any]] = {
    "gating.unadvertised": _update([_ONE]),
    "gating.types": _update([_ONE, {"prompt": [{"type": "text", "text": "Explain "}, _LINK]}]),
    "shape.update": _update([_ONE]),
    "shape.prompt": _update([{"prompt": [{"type": "text", "text": "Open "}, _LINK]}]),
    "shape.blank": _update([_ONE]),
    "lifetime.replace": _update([]),
    "lifetime.stale": _update([]),
    "replay.empty": _update([_ONE]),
    "session.id": _update([_ONE]),
    "legacy.meta": _update([_ONE]),
}


@dataclass(frozen=True)
class Hint:
    """What a report shows under a verdict to help fix it."""

    fix: str
    example: str  # folded JSON
    offending: WireLine | None = None  # the first message behind a FAIL, whole
    playground: str | None = None  # that message opened in the playground


def hint(verdict: Verdict, lines: list[WireLine], playground: str = DEFAULT_PLAYGROUND) -> Hint:
    """The hint of `verdict`, whose wire lines are `lines`; the offending message only for a FAIL."""
    example = fold(EXAMPLES[verdict.rule.id])
    if verdict.status.value != "FAIL":
        return Hint(FIXES[verdict.rule.id], example)
    culprit = next((w for w in lines if w.number == verdict.culprit), None)
    offending = culprit or next((w for w in lines if _suggestions(w) is not None), None)
    offending = offending or next((w for w in lines if w.direction == "in"), None)
    link = playground_link(playground, offending) if offending is not None else None
    return Hint(FIXES[verdict.rule.id], example, offending, link)


def _suggestions(wire: WireLine) -> dict[str, Any] | None:
    """The suggestion update `wire` carries (the RFD's, or the legacy `_meta`), or None."""
    if wire.direction != "in":
        return None
    try:
        message = json.loads(wire.text)
    except ValueError:
        return None
    params = message.get("params") if isinstance(message, dict) else None
    update = params.get("update") if isinstance(params, dict) else None
    if not isinstance(update, dict):
        return None
    if update.get("sessionUpdate") == "prompt_suggestions_update":
        return update
    meta = update.get("_meta")
    if isinstance(meta, dict) and "promptSuggestions" in meta:
        legacy = meta["promptSuggestions"]
        return {"suggestions": legacy.get("suggestions") if isinstance(legacy, dict) else legacy}
    return None


def playground_link(base: str, wire: WireLine) -> str | None:
    """`wire`'s suggestion update as a playground share link, with the block types its run offered."""
    update = _suggestions(wire)
    if update is None:
        return None
    text = fold(update)
    encoded = base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")
    offer = wire.run.split(" ", 1)[-1].removeprefix("offer-")
    types = offer if offer in ("image", "audio", "embeddedContext") else ""
    return f"{base}#{urlencode({'v': '1', 't': encoded, 'types': types})}"


def whole(wire: WireLine) -> str:
    """The message as people read it: folded JSON when it is JSON, else as it came."""
    try:
        return fold(json.loads(wire.text))
    except ValueError:
        return wire.text


def fold(value: Any, width: int = 88, indent: str = "") -> str:
    """JSON, indented, with each part that fits in `width` on one line (a suggestion, a block)."""
    flat = json.dumps(value, ensure_ascii=False)
    if len(indent) + len(flat) <= width or not isinstance(value, dict | list) or not value:
        return flat
    inner = indent + "  "
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {fold(v, width, inner).lstrip()}"
                 for k, v in value.items()]  # fmt: skip
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    items = [inner + fold(v, width, inner).lstrip() for v in value]
    return "[\n" + ",\n".join(items) + f"\n{indent}]"
