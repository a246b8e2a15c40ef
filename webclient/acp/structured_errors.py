"""ACP's structured errors in words: errors whose `data` says what went wrong in fields, not in words.

`SessionNotFoundErrorData` comes with -32002 ("resource not found") and names the session;
`UnsupportedProtocolVersionErrorData` comes with -32022 and lists the versions the agent does speak.
"""

from __future__ import annotations

from typing import Any

SESSION_NOT_FOUND = -32002
UNSUPPORTED_VERSION = -32022


def structured_reason(code: int, data: Any) -> str | None:
    """What the error says, in words; None when it is not one of these (or its data is not theirs)."""
    fields = data if isinstance(data, dict) else {}
    if code == SESSION_NOT_FOUND and isinstance(fields.get("sessionId"), str):
        return f"the agent has no session {fields['sessionId'][:200]!r} (it was deleted, or never kept)"
    supported = fields.get("supported")
    if code == UNSUPPORTED_VERSION and isinstance(supported, list):
        versions = ", ".join(str(v) for v in supported[:10] if isinstance(v, int)) or "none"
        return (
            f"the agent does not speak ACP version {fields.get('requested')}; it speaks version(s) {versions}"
        )
    return None


def supports_v1(code: int, data: Any) -> bool:
    """An unsupported-version error whose data lists version 1 among those the agent speaks."""
    supported = data.get("supported") if isinstance(data, dict) else None
    return code == UNSUPPORTED_VERSION and isinstance(supported, list) and 1 in supported
