"""What a notice says of an agent's failure or of why a turn stopped."""

from __future__ import annotations

from webclient.errors import AgentError, AgentExitedError, AgentRequestError


def error_detail(exc: AgentError) -> str | None:
    if isinstance(exc, AgentExitedError):
        return "\n".join(exc.stderr_tail) or "(the agent wrote nothing to stderr)"
    if isinstance(exc, AgentRequestError) and exc.data is not None:
        return repr(exc.data)[:1000]
    return None


def describe_stop_reason(reason: str) -> str:
    return {
        "cancelled": "the turn was cancelled",
        "max_tokens": "the agent stopped: it reached its token limit",
        "max_turn_requests": "the agent stopped: it reached its limit of model requests for one turn",
        "refusal": "the agent refused to continue",
    }.get(reason, f"the turn ended: {reason}")
