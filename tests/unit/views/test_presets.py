"""Presentation presets: the built-in ones keep the page's values, a project's file is validated, and a
session a preset is assigned to renders its suggestions with it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from webclient.acp.suggestions import parse_update
from webclient.domain.state import Aspect, SessionState
from webclient.views import presentation, render
from webclient.views.chips import CHIP_TEXT_LIMIT
from webclient.views.fold import FOLD
from webclient.views.presets import BUILT_IN, Preset, PresetError, build, load, parse_file


def offered(*texts: str) -> SessionState:
    state = SessionState()
    parsed = parse_update(
        {"suggestions": [{"prompt": [{"type": "text", "text": t}]} for t in texts]}, frozenset({"text"})
    )
    state.set_suggestions(parsed.suggestions)
    return state


def test_the_built_in_presets_are_the_three_styles_with_the_pages_values() -> None:
    assert list(BUILT_IN) == ["chips", "list", "ghost"]
    assert {p.style for p in BUILT_IN.values()} == {"chips", "list", "ghost"}
    for preset in BUILT_IN.values():
        # The page's fold: as many as fit in the room the conversation does not need.
        state = offered("a", "b", "c")
        presentation.assign(state, preset)
        assert presentation.fold_of(state) == FOLD
        assert (preset.fold, preset.shown_before_fold) == ("room", 0)
        assert preset.text_limit == CHIP_TEXT_LIMIT
        assert preset.density == "comfortable"
    assert BUILT_IN["ghost"].placement == "in_composer" and BUILT_IN["chips"].placement == "above_composer"


def test_a_projects_file_adds_presets_that_start_from_their_styles_values(tmp_path: Path) -> None:
    path = tmp_path / "presets.toml"
    path.write_text(
        '[[presets]]\nname = "three-chips"\nshown_before_fold = 3\ndensity = "compact"\n'
        '[[presets]]\nname = "long-list"\nstyle = "list"\nfold = "lines"\nfold_size = 3\ntext_limit = 400\n'
    )
    catalog = load(path)
    assert list(catalog) == ["chips", "list", "ghost", "three-chips", "long-list"]
    three = catalog["three-chips"]
    assert (three.style, three.shown_before_fold, three.fold_size, three.density) == (
        "chips",
        3,
        2,
        "compact",
    )
    assert (catalog["long-list"].fold, catalog["long-list"].fold_size, catalog["long-list"].text_limit) == (
        "lines",
        3,
        400,
    )
    json_path = tmp_path / "presets.json"
    json_path.write_text('{"presets": [{"name": "tiny", "text_limit": 40}]}')
    assert load(json_path)["tiny"].text_limit == 40


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"name": "x", "shown_before_fold": -1}, r"presets\[0\]: shown_before_fold: Input should be greater"),
        ({"name": "x", "style": "cards"}, r"presets\[0\]: style: Input should be 'chips', 'list' or 'ghost'"),
        ({"name": "Has Space"}, r"presets\[0\]: name: String should match pattern"),
        ({"name": "x", "colour": "red"}, r"presets\[0\]: colour: Extra inputs are not permitted"),
        (
            {"name": "x", "style": "ghost", "placement": "above_composer"},
            r"placement: the ghost style shows in the composer",
        ),
        (
            {"name": "x", "style": "list", "placement": "in_composer"},
            r"placement: the list style shows above the composer or under the answer",
        ),
        ({"name": "chips"}, r"preset 'chips': the name is taken"),
    ],
)
def test_a_preset_that_does_not_validate_names_the_field(
    raw: dict[str, Any], message: str, tmp_path: Path
) -> None:
    path = tmp_path / "presets.json"
    path.write_text(__import__("json").dumps({"presets": [raw]}))
    with pytest.raises(PresetError, match=message):
        load(path)


def test_a_file_of_the_wrong_shape_says_so(tmp_path: Path) -> None:
    with pytest.raises(PresetError, match="not valid TOML"):
        parse_file("presets = [", tmp_path / "p.toml")
    with pytest.raises(PresetError, match="expected a list named presets"):
        parse_file('{"presets": {}}', tmp_path / "p.json")
    with pytest.raises(PresetError, match="a preset is a table"):
        build("chips", "here")


def test_the_characters_fold_shows_suggestions_until_their_text_passes_the_size() -> None:
    preset = Preset(name="short", fold="characters", fold_size=25)
    assert preset.first_shown([10, 10, 10, 10]) == 2
    assert preset.first_shown([40, 5]) == 1  # the first always shows
    assert Preset(name="three", shown_before_fold=3).first_shown([5] * 8) == 3
    assert Preset(name="fits").first_shown([5] * 8) == 0  # as many as fit
    assert preset.fold_area == 0 and Preset(name="rows", fold="rows", fold_size=2).fold_area == 2


def test_a_session_with_a_preset_renders_its_style_fold_density_and_text_limit() -> None:
    state = offered("a" * 100, "b", "c")
    plain = render.region(state, Aspect.SUGGESTIONS)
    assert "data-preset" not in plain and 'data-fold-most="0"' in plain and "+100 characters" not in plain
    presentation.assign(
        state,
        Preset(
            name="tight",
            style="list",
            shown_before_fold=2,
            density="compact",
            text_limit=40,
            fold="lines",
            fold_size=4,
        ),
    )
    html = render.region(state, Aspect.SUGGESTIONS)
    assert 'data-style="list"' in html and 'data-preset="tight"' in html and 'data-density="compact"' in html
    assert 'data-fold-most="2"' in html and 'data-fold-area="4"' in html
    assert 'data-more="+60 characters' in html
    presentation.assign(state, None)
    assert "data-preset" not in render.region(state, Aspect.SUGGESTIONS)


@pytest.mark.parametrize("style", ["chips", "list"])
def test_chips_and_a_list_may_sit_under_the_last_answer(style: str, tmp_path: Path) -> None:
    path = tmp_path / "presets.json"
    path.write_text(json.dumps({"presets": [{"name": "under", "style": style, "placement": "under_answer"}]}))
    assert load(path)["under"].placement == "under_answer"
