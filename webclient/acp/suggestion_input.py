"""What a designer pastes into the playground, read as `prompt_suggestions_update` bodies.

Accepted: a `session/update` notification (v1 and v2 share the envelope), the update body itself, an
object with just `suggestions`, a bare list of suggestions, or a JSONL wire log (the inspector's export,
or raw JSON-RPC lines) from which every suggestion update is offered to pick. The bodies then go through
the same `read_suggestions` as a live connection's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from webclient.acp.suggestions import SUGGESTIONS_VARIANT
from webclient.acp.wire_values import MAX_DEPTH, clean

# A pasted text past this is refused before it is parsed (a wire log of a long session stays below it).
MAX_INPUT_CHARS = 8 * 1024 * 1024
# A wire log is read up to this many lines, and offers at most this many updates to pick (the rest is
# said, not read: a log of a whole day stays quick to open).
MAX_LOG_LINES = 20_000
MAX_CANDIDATES = 500


class InputError(ValueError):
    """The pasted text holds no suggestion update; the message says what was wrong and what works."""


@dataclass(frozen=True)
class Candidate:
    """One suggestion update found in the input: `label` names it for the picker."""

    label: str
    update: dict[str, Any]


def read_input(text: str) -> list[Candidate]:
    """Every suggestion update in `text`, in order; raises InputError when there is none. Values are read
    as a live connection reads them: a lone surrogate becomes U+FFFD, nesting past MAX_DEPTH is cut."""
    if len(text) > MAX_INPUT_CHARS:
        raise InputError(
            f"that is {len(text):,} characters; the playground reads at most {MAX_INPUT_CHARS:,}"
        )
    stripped = text.strip()
    if not stripped:
        raise InputError("paste a prompt_suggestions_update, a suggestions list or a JSONL wire log first")
    try:
        whole = _loads(stripped)
    except json.JSONDecodeError as exc:
        if "\n" not in stripped or not _is_json(stripped.split("\n", 1)[0]):
            # One JSON value over many lines (pretty-printed) is not a log: its own error, at its line.
            line = exc.lineno + text[: len(text) - len(text.lstrip())].count("\n")
            raise InputError(f"that is not JSON: {exc.msg} at line {line}, column {exc.colno}") from None
        return _log(text)
    found = _one(whole, "the update")
    if found is None:
        raise InputError(
            "that JSON is no prompt_suggestions_update: expected a session/update notification, its update "
            '(with "sessionUpdate": "prompt_suggestions_update"), {"suggestions": [...]} or a list of '
            "suggestions"
        )
    return [found]


def _log(text: str) -> list[Candidate]:
    """The updates of a JSONL log; line numbers count every line of `text`, blank ones too."""
    found: list[Candidate] = []
    lines = text.split("\n")
    for number, line in enumerate(lines[:MAX_LOG_LINES], start=1):
        if not line.strip():
            continue
        try:
            value = _loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"line {number} of the log is not JSON: {exc.msg} at column {exc.colno}"
            ) from None
        for message in value if isinstance(value, list) else [value]:
            candidate = _notification(message, f"line {number}")
            if candidate is not None:
                found.append(candidate)
        if len(found) >= MAX_CANDIDATES:
            break
    if not found:
        more = f" in its first {MAX_LOG_LINES:,} lines" if len(lines) > MAX_LOG_LINES else ""
        raise InputError(f"the wire log holds no prompt_suggestions_update{more}")
    return found[:MAX_CANDIDATES]


def _loads(text: str) -> Any:
    """JSON as the live path reads it; InputError for nesting past what the parser takes."""
    try:
        return clean(json.loads(text))
    except RecursionError:
        raise InputError(
            f"that JSON is nested deeper than the playground reads ({MAX_DEPTH} levels are kept, as a live "
            "session keeps them)"
        ) from None


def _is_json(line: str) -> bool:
    try:
        _loads(line)
    except (json.JSONDecodeError, InputError):
        return False
    return True


def _one(value: Any, label: str) -> Candidate | None:
    if isinstance(value, list):
        return Candidate("a suggestions list", {"sessionUpdate": SUGGESTIONS_VARIANT, "suggestions": value})
    if not isinstance(value, dict):
        return None
    if "message" in value or "method" in value:
        return _notification(value, label)
    if value.get("sessionUpdate") == SUGGESTIONS_VARIANT:
        return Candidate(label, value)
    if "suggestions" in value and "sessionUpdate" not in value:
        return Candidate(label, {**value, "sessionUpdate": SUGGESTIONS_VARIANT})
    return None


def _notification(value: Any, label: str) -> Candidate | None:
    """A `session/update` carrying suggestions, bare or in an inspector record (`message`)."""
    if isinstance(value, dict) and isinstance(value.get("message"), dict):
        direction = value.get("direction")
        value = value["message"]
        if direction not in (None, "in"):
            return None
    if not isinstance(value, dict) or value.get("method") != "session/update":
        return None
    params = value.get("params")
    update = params.get("update") if isinstance(params, dict) else None
    if not isinstance(update, dict) or update.get("sessionUpdate") != SUGGESTIONS_VARIANT:
        return None
    count = len(update["suggestions"]) if isinstance(update.get("suggestions"), list) else 0
    session = params.get("sessionId") if isinstance(params, dict) else None
    return Candidate(f"{label}: {count} suggestion{'s' if count != 1 else ''} for session {session}", update)
