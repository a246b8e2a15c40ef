"""The preset lab's presets from its knobs, and the presets file it makes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webclient.acp.suggestion_input import InputError
from webclient.views.preset_lab import listing, presets_file, side
from webclient.views.presets import BUILT_IN, parse_file


def test_knobs_change_the_base_preset_and_a_bad_one_keeps_it_with_the_reason(tmp_path: Path) -> None:
    changed = side(
        "a", {"a_base": "chips", "a_style": "ghost", "a_text_limit": "60"}, BUILT_IN, str(tmp_path)
    )
    assert (changed.preset.name, changed.preset.style, changed.preset.placement) == (
        "chips-a",
        "ghost",
        "in_composer",
    )
    assert changed.preset.text_limit == 60 and changed.error is None
    assert 'data-preset="chips-a"' in changed.desktop and 'data-role="preset-preview"' in changed.phone
    bad = side("b", {"b_base": "list", "b_shown_before_fold": "-1"}, BUILT_IN, str(tmp_path))
    assert bad.preset == BUILT_IN["list"]
    assert (
        bad.error is not None and "shown_before_fold: Input should be greater than or equal to 0" in bad.error
    )
    assert side("a", {"a_base": "nope"}, BUILT_IN, str(tmp_path)).preset == BUILT_IN["chips"]


def test_the_presets_file_reads_back_as_the_same_presets(tmp_path: Path) -> None:
    made = side(
        "a",
        {"a_base": "list", "a_density": "compact", "a_fold": "characters", "a_fold_size": "90"},
        BUILT_IN,
        str(tmp_path),
    ).preset
    text = presets_file([made, BUILT_IN["ghost"].model_copy(update={"name": "my-ghost"})])
    again = parse_file(text, tmp_path / "presets.toml")
    assert again["list-a"] == made
    assert again["my-ghost"].style == "ghost"


def test_a_pasted_list_is_previewed_with_each_diagnosed_suggestion_marked(tmp_path: Path) -> None:
    texts = ["List the files", "Say hi\u200b now"]
    pasted = json.dumps({"suggestions": [{"prompt": [{"type": "text", "text": t}]} for t in texts]})
    shown = listing(pasted, 0, str(tmp_path))
    assert [s.text for s in shown.suggestions] == texts
    assert shown.marked == {1}
    assert shown.reading is not None and {d.kind for d in shown.reading.diagnostics} == {
        "hidden",
        "auto-send",
    }
    preview = side("b", {}, BUILT_IN, str(tmp_path), shown).desktop
    assert preview.count('data-diagnosed="2"') >= 1 and 'data-diagnosed="1"' not in preview
    assert listing("  ", 0, str(tmp_path)).reading is None  # nothing pasted: the sample, nothing said
    with pytest.raises(InputError):
        listing('{"suggestions": 5', 0, str(tmp_path))


def test_the_placement_knob_puts_a_list_under_the_answer_and_ghost_text_stays_in_the_composer(
    tmp_path: Path,
) -> None:
    under = side("a", {"a_base": "list", "a_placement": "under_answer"}, BUILT_IN, str(tmp_path))
    assert under.error is None and under.preset.placement == "under_answer"
    assert 'data-placement="under_answer"' in under.desktop and 'data-role="preview-answer"' in under.desktop
    # A ghost base turned into chips leaves the composer for the place above it.
    chips = side(
        "b", {"b_base": "ghost", "b_style": "chips", "b_placement": "in_composer"}, BUILT_IN, str(tmp_path)
    )
    assert chips.error is None and chips.preset.placement == "above_composer"
    ghost = side(
        "c", {"c_base": "list", "c_style": "ghost", "c_placement": "under_answer"}, BUILT_IN, str(tmp_path)
    )
    assert ghost.preset.placement == "in_composer" and 'data-role="preview-answer"' not in ghost.desktop
