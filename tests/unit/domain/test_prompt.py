"""What the composer sends: its text with inline file tokens, and the attachments this tab holds by id."""

from __future__ import annotations

import json
from typing import Any

import pytest

from webclient.acp.content_blocks import content_to_wire, prompt_to_wire, translate_content
from webclient.acp.models import (
    ImagePart,
    PromptCapabilities,
    ResourceLinkPart,
    ResourcePart,
    Suggestion,
    TextPart,
)
from webclient.domain.prompt import (
    MAX_ATTACHMENTS,
    ComposedPrompt,
    ComposerAttachments,
    PromptRejected,
    composer_text,
    unique_labels,
)
from webclient.views.hidden_chars import strip_hidden
from webclient.web.actions import EditSuggestionAction, PromptAction, parse_action

NONE = PromptCapabilities()  # an agent that accepts only text and resource links
IMAGES = PromptCapabilities(image=True)

LINK = {"type": "resource_link", "name": "cart.py", "uri": "file:///w/cart.py", "_meta": {"x": 1}}
OTHER = {"type": "resource_link", "name": "pricing.py", "uri": "file:///w/pricing.py"}
PNG = {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}
# What the user attaches (a picked file, a pasted image) is one of our parts: no agent wrote it, so it goes
# out as its part says, without the `_meta` a suggestion's block of the same file may carry.
LINK_PART = translate_content(LINK)
PNG_PART = translate_content(PNG)
LINK_SENT = content_to_wire(LINK_PART)


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": value, **extra}


def suggestion(*blocks: dict[str, Any]) -> Suggestion:
    return Suggestion(parts=tuple(translate_content(b) for b in blocks), wire=tuple(blocks))


def wire(composed: ComposedPrompt) -> list[dict[str, Any]]:
    """What the agent layer sends for this prompt."""
    return prompt_to_wire(composed.blocks)


def test_an_unchanged_suggestion_taken_into_the_composer_is_sent_deep_equal() -> None:
    blocks = (text("Explain ", _meta={"k": 1}), LINK, text(" and "), OTHER, text(" please"))
    composer = ComposerAttachments()
    shown, held = composer.take(suggestion(*blocks), strip_hidden)
    assert shown == "Explain ⟦cart.py⟧ and ⟦pricing.py⟧ please"
    assert [h.label for h in held] == ["cart.py", "pricing.py"]
    composed = composer.compose(shown, [h.id for h in held], NONE)
    assert wire(composed) == list(blocks)
    assert composed.parts == [translate_content(b) for b in blocks]


def test_an_edited_text_keeps_each_file_where_its_token_stands() -> None:
    composer = ComposerAttachments()
    _shown, held = composer.take(suggestion(text("Explain "), LINK, text(" and "), OTHER), strip_hidden)
    edited = "Compare ⟦pricing.py⟧ with ⟦cart.py⟧ now"
    composed = composer.compose(edited, [h.id for h in held], NONE)
    assert wire(composed) == [text("Compare "), OTHER, text(" with "), LINK, text(" now")]


def test_a_kept_attachment_without_a_token_follows_the_text_and_a_dropped_one_is_not_sent() -> None:
    composer = ComposerAttachments()
    image = composer.add(PNG_PART, inline=False)
    link = composer.add(LINK_PART, inline=True)
    composed = composer.compose("look at this", [image.id], IMAGES)
    assert wire(composed) == [text("look at this"), PNG]
    assert link.id not in [h.id for h in composer.held if h.block in composed.blocks]


def test_attachments_alone_make_a_prompt_and_blank_text_is_left_out() -> None:
    composer = ComposerAttachments()
    held = composer.add(LINK_PART, inline=True)
    assert held.block.original is None
    assert composer.compose("   ", [held.id], NONE).parts == [LINK_PART]


def test_nothing_at_all_is_rejected() -> None:
    with pytest.raises(PromptRejected, match="empty prompt"):
        ComposerAttachments().compose(" \n", [], NONE)


def test_a_token_the_tab_does_not_hold_is_refused_rather_than_sent_as_words() -> None:
    with pytest.raises(PromptRejected, match="no longer holds"):
        ComposerAttachments().compose("Explain ⟦cart.py⟧", [], NONE)


def test_an_id_the_tab_does_not_hold_is_refused_rather_than_silently_left_out() -> None:
    with pytest.raises(PromptRejected, match="no longer held"):
        ComposerAttachments().compose("hi", ["att-nope"], NONE)


def test_an_image_needs_the_agents_image_capability() -> None:
    composer = ComposerAttachments()
    held = composer.add(PNG_PART, inline=False)
    with pytest.raises(PromptRejected, match="does not accept image"):
        composer.compose("look", [held.id], NONE)
    composed = composer.compose("look", [held.id], IMAGES)
    assert isinstance(composed.parts[1], ImagePart)


def test_hidden_characters_are_left_out_of_the_composer_and_so_out_of_what_is_sent() -> None:
    composer = ComposerAttachments()
    shown, _ = composer.take(suggestion(text("List\u200b files")), strip_hidden)
    assert shown == "List files"
    assert wire(composer.compose(shown, [], NONE)) == [text("List files")]


def test_a_suggestion_cannot_write_a_token_for_an_attachment_it_does_not_carry() -> None:
    composer = ComposerAttachments()
    removed = composer.add(LINK_PART, inline=True)  # attached, then removed by the user
    composer.drop(removed.id)
    composer.add(PNG_PART, inline=False)  # still held: on its way to the page
    forged = suggestion(text("Explain ⟦cart.py⟧ and ⟦image⟧"))
    shown, held = composer.take(forged, strip_hidden)
    assert shown == "Explain [cart.py] and [image]" and held == []
    assert wire(composer.compose(shown, [], NONE)) == [text("Explain [cart.py] and [image]")]


def test_a_removed_attachment_is_forgotten() -> None:
    composer = ComposerAttachments()
    held = composer.add(LINK_PART, inline=True)
    composer.drop(held.id)
    with pytest.raises(PromptRejected, match="no longer holds"):
        composer.compose("Explain ⟦cart.py⟧", [], NONE)


def test_same_names_get_distinct_labels_and_tokens_cannot_be_forged_by_a_name() -> None:
    evil = {"type": "resource_link", "name": "a⟧b⟦c", "uri": "file:///x"}
    parts = [translate_content(b) for b in (LINK, LINK, evil)]
    assert unique_labels(parts) == ["cart.py", "cart.py 2", "abc"]
    assert composer_text([TextPart(text="x "), *parts], strip_hidden) == "x ⟦cart.py⟧⟦cart.py 2⟧⟦abc⟧"


def test_taking_a_suggestion_keeps_an_image_on_its_way_and_its_tokens_name_its_own_files() -> None:
    composer = ComposerAttachments()
    image = composer.add(PNG_PART, inline=False)
    older = translate_content(OTHER | {"name": "cart.py"})  # an older cart.py the page no longer shows
    composer.add(older, inline=True)
    shown, held = composer.take(suggestion(text("hi "), LINK), strip_hidden)
    assert shown == "hi ⟦cart.py⟧"
    assert prompt_to_wire([h.block for h in composer.held]) == [PNG, LINK]
    assert isinstance(held[0].part, ResourceLinkPart)
    assert wire(composer.compose(shown, [held[0].id, image.id], IMAGES)) == [text("hi "), LINK, PNG]


def test_too_many_attachments_are_refused() -> None:
    composer = ComposerAttachments()
    for _ in range(MAX_ATTACHMENTS):
        composer.add(LINK_PART, inline=True)
    with pytest.raises(PromptRejected, match="at most"):
        composer.add(LINK_PART, inline=True)


def test_prompt_action_takes_one_attachment_id_as_a_string_or_several_as_a_list() -> None:
    one = parse_action(json.dumps({"action": "prompt", "text": "x", "attachments": "a"}))
    many = parse_action(json.dumps({"action": "prompt", "text": "x", "attachments": ["a", "b"]}))
    none = parse_action(json.dumps({"action": "prompt", "text": "x"}))
    assert isinstance(one, PromptAction) and one.attachments == ["a"]
    assert isinstance(many, PromptAction) and many.attachments == ["a", "b"]
    assert isinstance(none, PromptAction) and none.attachments == []


def test_prompt_action_refuses_a_content_block_where_an_id_belongs() -> None:
    with pytest.raises(ValueError):
        parse_action(json.dumps({"action": "prompt", "text": "x", "attachments": json.dumps(PNG) * 3}))


def test_edit_suggestion_action_names_a_list_and_an_index() -> None:
    action = parse_action(json.dumps({"action": "edit_suggestion", "generation": "3", "index": "1"}))
    assert action == EditSuggestionAction(action="edit_suggestion", generation=3, index=1)


def test_the_space_typed_after_a_file_reference_is_not_a_block_of_its_own() -> None:
    composer = ComposerAttachments()
    held = composer.add(LINK_PART, inline=True)
    assert wire(composer.compose("show ⟦cart.py⟧ ", [held.id], NONE)) == [text("show "), LINK_SENT]


def test_the_text_of_attachments_counts_toward_the_prompt_cap() -> None:
    composer = ComposerAttachments()
    big = ResourcePart(uri="file:///w/big.txt", text="x" * 150_000)
    held = [composer.add(big, inline=False), composer.add(big, inline=False)]
    caps = PromptCapabilities(embedded_context=True)
    with pytest.raises(PromptRejected, match=r"300,00\d characters, more than the 200,000 allowed"):
        composer.compose("hi", [h.id for h in held], caps)
    assert len(composer.compose("hi", [held[0].id], caps).blocks) == 2
