"""What the composer sends: its text, then the attachments it holds, checked against the agent."""

from __future__ import annotations

import json

import pytest

from webclient.acp.models import ImagePart, PromptCapabilities, ResourceLinkPart, TextPart
from webclient.domain.prompt import MAX_ATTACHMENTS, PromptRejected, compose
from webclient.web.actions import EditSuggestionAction, PromptAction, parse_action

NONE = PromptCapabilities()  # an agent that accepts only text and resource links

LINK = {"type": "resource_link", "name": "cart.py", "uri": "file:///w/cart.py", "_meta": {"x": 1}}
PNG = {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}


def test_text_then_attachments_in_order_with_each_block_sent_exactly_as_given() -> None:
    composed = compose("Explain", [json.dumps(LINK)], NONE)
    assert composed.wire == [{"type": "text", "text": "Explain"}, LINK]
    assert composed.parts[0] == TextPart(text="Explain")
    assert isinstance(composed.parts[1], ResourceLinkPart) and composed.parts[1].name == "cart.py"


def test_attachments_alone_make_a_prompt_and_blank_text_is_left_out() -> None:
    composed = compose("   ", [json.dumps(LINK)], NONE)
    assert composed.wire == [LINK]


def test_nothing_at_all_is_rejected() -> None:
    with pytest.raises(PromptRejected, match="empty prompt"):
        compose(" \n", [], NONE)


def test_an_image_needs_the_agents_image_capability() -> None:
    with pytest.raises(PromptRejected, match="does not accept image"):
        compose("look", [json.dumps(PNG)], NONE)
    composed = compose("look", [json.dumps(PNG)], PromptCapabilities(image=True))
    assert isinstance(composed.parts[1], ImagePart)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("not json", "not valid JSON"),
        ("[1, 2]", "not a content block"),
        (json.dumps({"type": "video", "data": "x"}), "unknown type"),
        (json.dumps({"type": "resource_link", "name": "x"}), "malformed"),
    ],
)
def test_a_bad_attachment_rejects_the_whole_prompt(raw: str, reason: str) -> None:
    with pytest.raises(PromptRejected, match=reason):
        compose("hi", [raw], NONE)


def test_too_many_attachments_are_refused() -> None:
    with pytest.raises(PromptRejected, match="at most"):
        compose("hi", [json.dumps(LINK)] * (MAX_ATTACHMENTS + 1), NONE)


def test_prompt_action_takes_one_attachment_as_a_string_or_several_as_a_list() -> None:
    one = parse_action(json.dumps({"action": "prompt", "text": "x", "attachments": "a"}))
    many = parse_action(json.dumps({"action": "prompt", "text": "x", "attachments": ["a", "b"]}))
    none = parse_action(json.dumps({"action": "prompt", "text": "x"}))
    assert isinstance(one, PromptAction) and one.attachments == ["a"]
    assert isinstance(many, PromptAction) and many.attachments == ["a", "b"]
    assert isinstance(none, PromptAction) and none.attachments == []


def test_edit_suggestion_action_names_a_list_and_an_index() -> None:
    action = parse_action(json.dumps({"action": "edit_suggestion", "generation": "3", "index": "1"}))
    assert action == EditSuggestionAction(action="edit_suggestion", generation=3, index=1)


def test_attachments_count_toward_the_prompt_cap() -> None:
    block = json.dumps({"type": "text", "text": "x" * 190_000})
    with pytest.raises(PromptRejected, match=r"9,50\d,\d+ characters, more than the 200,000 allowed"):
        compose("", [block] * 50, NONE)
    small = json.dumps({"type": "text", "text": "y" * 99_000})
    with pytest.raises(PromptRejected, match="more than the 200,000"):
        compose("z" * 3_000, [small, small], NONE)
    assert len(compose("z" * 1_000, [small, small], NONE).wire) == 3
