"""What the playground accepts as a suggestion update, and the clear refusals of everything else."""

from __future__ import annotations

import json

import pytest

from webclient.acp.suggestion_input import InputError, read_input

LIST = [{"prompt": [{"type": "text", "text": "hi"}]}]
BODY = {"sessionUpdate": "prompt_suggestions_update", "suggestions": LIST}
NOTE = {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": BODY}}


@pytest.mark.parametrize(
    "value",
    [NOTE, BODY, {"suggestions": LIST}, LIST, {"direction": "in", "message": NOTE}],
    ids=["notification", "update", "suggestions-object", "bare-list", "inspector-record"],
)
def test_each_accepted_shape_gives_the_update_body(value: object) -> None:
    [found] = read_input(json.dumps(value))
    assert found.update["sessionUpdate"] == "prompt_suggestions_update"
    assert found.update["suggestions"] == LIST


def test_a_wire_log_gives_every_suggestion_update_from_the_agent_in_order() -> None:
    other = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": {"sessionUpdate": "plan"}},
    }
    outgoing = {"direction": "out", "message": NOTE}
    log = "\n".join(
        json.dumps(v) for v in (NOTE, other, outgoing, [NOTE], {"direction": "in", "message": NOTE})
    )
    found = read_input(log)
    assert [c.label.split(":")[0] for c in found] == ["line 1", "line 4", "line 5"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "paste a prompt_suggestions_update"),
        ("{nope", "that is not JSON"),
        ('{"plan": []}', "no prompt_suggestions_update"),
        ("1", "no prompt_suggestions_update"),
        ('{"a": 1}\n{"b": 2}', "holds no prompt_suggestions_update"),
        ('{"a": 1}\nnot json', "line 2 of the log is not JSON"),
    ],
)
def test_unusable_input_is_refused_with_what_was_wrong(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        read_input(text)
