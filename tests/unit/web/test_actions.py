"""What a tab may send over its WebSocket: valid actions parse, anything else is a readable BadAction."""

from __future__ import annotations

import json
from typing import Any

import pytest

from webclient.domain.prompt import MAX_PROMPT_CHARS
from webclient.web.actions import (
    AuthenticateAction,
    BadAction,
    CancelAction,
    PromptAction,
    RestartAction,
    ResyncAction,
    StoredCopyAction,
    WaitingAction,
    parse_action,
)

HTMX_HEADERS = {"HX-Request": "true", "HX-Trigger": "composer-form", "HX-Current-URL": "http://127.0.0.1/"}


def frame(**fields: Any) -> str:
    return json.dumps({**fields, "HEADERS": HTMX_HEADERS})


def test_prompt_parses_with_its_text_and_ignores_htmx_headers() -> None:
    action = parse_action(frame(action="prompt", text="Explain this repo"))
    assert action == PromptAction(action="prompt", text="Explain this repo")
    assert not hasattr(action, "HEADERS")


def test_prompt_keeps_text_exactly_including_newlines_and_markup() -> None:
    text = "line one\nline two  \n<b>not html</b> ```code```"
    action = parse_action(frame(action="prompt", text=text))
    assert isinstance(action, PromptAction)
    assert action.text == text


def test_prompt_of_exactly_the_maximum_length_is_accepted() -> None:
    action = parse_action(frame(action="prompt", text="x" * MAX_PROMPT_CHARS))
    assert isinstance(action, PromptAction)
    assert len(action.text) == MAX_PROMPT_CHARS


def test_cancel_parses() -> None:
    assert parse_action(frame(action="cancel")) == CancelAction(action="cancel")


def test_resync_parses_with_why_and_what_the_page_showed() -> None:
    action = parse_action(json.dumps({"action": "resync", "reason": "digest", "seen": "ready|2|0|msg-1"}))
    assert action == ResyncAction(action="resync", reason="digest", seen="ready|2|0|msg-1")
    assert parse_action(json.dumps({"action": "resync"})) == ResyncAction(action="resync")
    with pytest.raises(BadAction):
        parse_action(json.dumps({"action": "resync", "seen": "x" * 301}))


def test_a_waiting_prompt_is_cancelled_or_edited_by_its_id_and_nothing_else() -> None:
    action = parse_action(frame(action="waiting", op="edit", id="wait-3"))
    assert action == WaitingAction(action="waiting", op="edit", id="wait-3")
    for bad in ({"op": "send", "id": "wait-3"}, {"op": "cancel", "id": ""}, {"op": "cancel"}):
        with pytest.raises(BadAction):
            parse_action(frame(action="waiting", **bad))


def test_restart_parses() -> None:
    assert parse_action(frame(action="restart")) == RestartAction(action="restart")


def test_authenticate_parses_with_its_method_id() -> None:
    assert parse_action(frame(action="authenticate", method_id="api-key")) == AuthenticateAction(
        action="authenticate", method_id="api-key"
    )


def test_extra_form_fields_are_ignored() -> None:
    assert parse_action(frame(action="cancel", text="stray", csrf="x")) == CancelAction(action="cancel")


BAD = {
    "invalid json": "{action: prompt}",
    "empty frame": "",
    "truncated json": '{"action": "prompt", "text": "hi"',
    "unknown action": json.dumps({"action": "rm -rf"}),
    "no action": json.dumps({"text": "hi"}),
    "action is not a string": json.dumps({"action": 1}),
    "prompt without text": json.dumps({"action": "prompt"}),
    "prompt text is a number": json.dumps({"action": "prompt", "text": 42}),
    "prompt text is null": json.dumps({"action": "prompt", "text": None}),
    "prompt text too long": json.dumps({"action": "prompt", "text": "x" * (MAX_PROMPT_CHARS + 1)}),
    "authenticate without method": json.dumps({"action": "authenticate"}),
    "authenticate with empty method": json.dumps({"action": "authenticate", "method_id": ""}),
    "authenticate method too long": json.dumps({"action": "authenticate", "method_id": "m" * 201}),
    "json array": json.dumps([{"action": "cancel"}]),
    "json string": json.dumps("cancel"),
    "json number": "7",
    "json null": "null",
}


@pytest.mark.parametrize("raw", BAD.values(), ids=BAD.keys())
def test_invalid_frames_raise_bad_action_with_a_readable_message(raw: str) -> None:
    with pytest.raises(BadAction) as caught:
        parse_action(raw)
    message = str(caught.value)
    assert message.startswith("the browser sent a request this server does not understand (")
    assert message.endswith(")")
    assert "\n" not in message


def test_bad_action_message_names_the_missing_field() -> None:
    with pytest.raises(BadAction, match=r"prompt\.text: Field required"):
        parse_action(json.dumps({"action": "prompt"}))


def test_bad_action_message_for_over_long_text_says_so() -> None:
    with pytest.raises(BadAction, match=r"prompt\.text: .*at most 200000 characters"):
        parse_action(json.dumps({"action": "prompt", "text": "x" * (MAX_PROMPT_CHARS + 1)}))


def test_bad_action_message_for_an_unknown_action_lists_the_known_ones() -> None:
    with pytest.raises(BadAction) as caught:
        parse_action(json.dumps({"action": "dance"}))
    for known in ("prompt", "cancel", "restart", "authenticate"):
        assert repr(known) in str(caught.value)


def test_bad_action_is_a_value_error() -> None:
    assert issubclass(BadAction, ValueError)


@pytest.mark.parametrize("verb", ["open_copy", "copy_into_new", "delete_copy"])
def test_a_stored_copy_action_names_its_copy_by_its_key(verb: str) -> None:
    assert parse_action(frame(action=verb, key="0123456789abcdef" * 2)) == StoredCopyAction(
        action=verb,  # type: ignore[arg-type]
        key="0123456789abcdef" * 2,
    )


@pytest.mark.parametrize("key", ["", "../transcripts", "0123456789ABCDEF" * 2, "0" * 33])
def test_a_stored_copy_action_with_anything_but_a_key_is_refused(key: str) -> None:
    with pytest.raises(BadAction):
        parse_action(frame(action="delete_copy", key=key))
