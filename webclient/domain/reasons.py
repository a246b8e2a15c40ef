"""What a notice says of an agent's failure or of why a turn stopped.

An agent's JSON-RPC error has a generic `message` ("Internal error") and, often, its real reason in
`data` (gemini-cli: `{"details": "Cannot enable privileged approval modes in an untrusted folder."}`).
The notice leads with the agent's own words, and its details keep the whole error: the words, the method,
message and code, and the data as JSON (bounded; the template escapes it).
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from webclient.acp.remote import shown_url
from webclient.acp.remote.websocket import OPEN_TIMEOUT
from webclient.acp.structured_errors import structured_reason
from webclient.errors import AgentError, AgentExitedError, AgentRequestError
from webclient.remote_config import WEBSOCKET_SCHEMES
from webclient.text_controls import strip_controls

# The keys under which agents put their reason in an error's `data`, most specific first.
REASON_KEYS = ("details", "detail", "reason", "message", "error", "description", "cause")
MAX_REASON_CHARS = 500
MAX_DATA_CHARS = 2000


def agent_reason(exc: AgentError) -> str | None:
    """The agent's own words for why a request failed, from its error's `data`; None if it gave none.
    ACP's structured errors (no words, but data that says it) are put in words here."""
    if not isinstance(exc, AgentRequestError):
        return None
    if (structured := structured_reason(exc.code, exc.data)) is not None:
        return structured
    words = _words(exc.data)
    return _bounded(strip_controls(words).strip(), MAX_REASON_CHARS) if words else None


def failure_text(what: str, exc: AgentError) -> str:
    """`what` (e.g. "the agent did not switch the mode") with the agent's reason, else the error itself."""
    return f"{what}: {agent_reason(exc) or exc}"


def error_detail(exc: AgentError) -> str | None:
    """The technical text of a failure, for a notice's details: plain words first, then the rest."""
    if isinstance(exc, AgentExitedError):
        return "\n".join(exc.stderr_tail) or "(the agent wrote nothing to stderr)"
    if not isinstance(exc, AgentRequestError):
        return None
    lines = [reason] if (reason := agent_reason(exc)) else []
    lines.append(strip_controls(str(exc)))
    if exc.data is not None and exc.data != reason:
        lines.append("data: " + _bounded(strip_controls(_json(exc.data)), MAX_DATA_CHARS))
    return "\n".join(lines)


def describe_stop_reason(reason: str) -> str:
    return {
        "cancelled": "the turn was cancelled",
        "max_tokens": "the agent stopped: it reached its token limit",
        "max_turn_requests": "the agent stopped: it reached its limit of model requests for one turn",
        "refusal": "the agent refused to continue",
    }.get(reason, f"the turn ended: {reason}")


def _words(data: object) -> str | None:
    if isinstance(data, str):
        return data if data.strip() else None
    if isinstance(data, dict):
        for key in REASON_KEYS:
            value = data.get(key)
            if isinstance(value, str) and value.strip():
                return value
            if isinstance(value, dict) and (inner := _words(value)):
                return inner  # {"error": {"message": "..."}}
    return None


def _json(data: object) -> str:
    try:
        return json.dumps(data, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(data)


def _bounded(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def connecting_text(url: str, initialize_timeout: float, attempt: int) -> str:
    """What the page says while a remote agent is being reached: where, which attempt, and how long it
    has (a WebSocket's opening handshake, then the answer to `initialize`), so an endpoint that never
    answers is not a bare "starting agent…"."""
    deadline = initialize_timeout + (OPEN_TIMEOUT if urlsplit(url).scheme in WEBSOCKET_SCHEMES else 0)
    return (
        f"connecting to the remote agent at {shown_url(url)} (attempt {attempt}): it has {deadline:g} s "
        "to answer before webclient gives up"
    )
