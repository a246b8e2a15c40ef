"""A failed request's notice: the agent's own words first, then its error and data."""

from __future__ import annotations

from webclient.domain.reasons import agent_reason, error_detail, failure_text
from webclient.errors import AgentExitedError, AgentRequestError

GEMINI = AgentRequestError(
    "session/set_mode",
    -32603,
    "Internal error",
    {"details": "Cannot enable privileged approval modes in an untrusted folder."},
)


def test_the_reason_in_data_details_leads_the_text() -> None:
    assert failure_text("the agent did not switch the mode", GEMINI) == (
        "the agent did not switch the mode: Cannot enable privileged approval modes in an untrusted folder."
    )


def test_the_detail_has_the_words_then_the_error_then_the_data_as_json() -> None:
    assert error_detail(GEMINI) == (
        "Cannot enable privileged approval modes in an untrusted folder.\n"
        "session/set_mode failed: Internal error (code -32603)\n"
        'data: {"details": "Cannot enable privileged approval modes in an untrusted folder."}'
    )


def test_a_string_as_data_is_the_reason_and_not_repeated() -> None:
    exc = AgentRequestError("session/prompt", -32603, "Internal error", "model overloaded")
    assert agent_reason(exc) == "model overloaded"
    assert error_detail(exc) == "model overloaded\nsession/prompt failed: Internal error (code -32603)"


def test_a_reason_nested_under_error_or_reason_is_found() -> None:
    nested = AgentRequestError("m", 1, "x", {"error": {"message": "quota exceeded"}})
    reason = AgentRequestError("m", 1, "x", {"reason": "not signed in", "other": 1})
    assert agent_reason(nested) == "quota exceeded"
    assert agent_reason(reason) == "not signed in"


def test_data_without_words_is_shown_as_bounded_json_and_the_text_keeps_the_error() -> None:
    exc = AgentRequestError("session/new", -32603, "Internal error", {"items": list(range(2000))})
    assert failure_text("could not", exc) == "could not: session/new failed: Internal error (code -32603)"
    detail = error_detail(exc)
    assert detail is not None
    data = detail.splitlines()[-1]
    assert data.startswith('data: {"items": [0, 1, 2') and data.endswith("…")
    assert len(data) <= len("data: ") + 2000


def test_control_sequences_in_the_agents_words_are_removed() -> None:
    exc = AgentRequestError("m", 1, "x", {"details": "\x1b[31mdenied\x1b[0m\x07"})
    assert agent_reason(exc) == "denied"
    assert "\x1b" not in (error_detail(exc) or "")


def test_no_data_no_detail_beyond_the_error() -> None:
    assert error_detail(AgentRequestError("m", 1, "x")) == "m failed: x (code 1)"
    assert error_detail(AgentExitedError(1, [])) == "(the agent wrote nothing to stderr)"
