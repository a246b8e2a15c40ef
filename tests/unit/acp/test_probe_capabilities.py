"""The capability forms `webclient check` declares, and the suggestion rules it reads from the layer."""

from __future__ import annotations

from typing import Any

import pytest

from webclient.acp.capabilities import OFFERS, UNADVERTISED_FORMS, probe_initialize
from webclient.acp.suggestions import BASELINE_TYPES, offered_types, read_suggestions


def session_group(version: int, form: str) -> tuple[bool, Any]:
    caps = probe_initialize(version, form)["clientCapabilities" if version == 1 else "capabilities"]
    return "session" in caps, caps.get("session")


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("form", sorted(UNADVERTISED_FORMS))
def test_no_unadvertised_form_advertises_prompt_suggestions(version: int, form: str) -> None:
    present, session = session_group(version, form)
    assert offered_types(session) is None
    expected = {"session-absent": (False, None), "air-meta": (False, None), "session-null": (True, None)}
    if form in expected:
        assert (present, session) == expected[form]
    elif form == "session-empty":
        assert session == {}
    else:
        assert session["promptSuggestions"] is None


@pytest.mark.parametrize("version", [1, 2])
def test_the_offers_advertise_the_baseline_then_one_type_each(version: int) -> None:
    offers = {form: offered_types(session_group(version, form)[1]) for form in OFFERS}
    assert offers == {
        "offer-baseline": {},
        "offer-image": {"image": {}},
        "offer-audio": {"audio": {}},
        "offer-embeddedContext": {"embeddedContext": {}},
    }


def test_air_meta_is_declared_in_both_versions() -> None:
    assert probe_initialize(1, "air-meta")["clientCapabilities"]["_meta"] == {"jetbrains": {"air": {}}}
    assert probe_initialize(2, "air-meta")["capabilities"]["_meta"] == {"jetbrains": {"air": {}}}


def test_a_meta_that_is_not_an_object_makes_the_update_malformed() -> None:
    event = read_suggestions({"suggestions": [], "_meta": 5}, BASELINE_TYPES)
    assert event.malformed is not None and "_meta" in event.malformed
    assert read_suggestions({"suggestions": [], "_meta": None}, BASELINE_TYPES).malformed is None


def test_each_skipped_suggestion_names_the_rule_it_breaks() -> None:
    text = {"type": "text", "text": "go"}
    update = {
        "suggestions": [
            {"prompt": [{"type": "text", "text": "  "}]},
            {"prompt": [{"type": "image", "mimeType": "image/png", "data": "AAAA"}]},
            {"prompt": [{"type": "resource_link", "name": "notes", "uri": "notes.txt"}]},
            {"prompt": [text], "_meta": "x"},
            {"prompt": [text], "_meta": {"k": 1}},
        ]
    }
    event = read_suggestions(update, BASELINE_TYPES)
    assert [s.rule for s in event.skipped] == ["blank", "type", "shape", "shape"]
    assert "not an absolute URI" in event.skipped[2].reason
    assert len(event.suggestions) == 1
