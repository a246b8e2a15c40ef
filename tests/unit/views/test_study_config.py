"""A study file: the smallest one, every field's default, and errors that name the field and the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from webclient.views.presets import BUILT_IN
from webclient.views.study_config import StudyFileError, load, parse


def test_the_smallest_file_is_a_name_and_two_presets(tmp_path: Path) -> None:
    plan = parse('{"name": "chips-vs-list", "presets": ["chips", "list"]}', tmp_path / "s.json", BUILT_IN)
    assert plan.preset_names == ("chips", "list")
    assert (plan.assignment, plan.seed, plan.replay, plan.prompts, plan.note) == (
        "alternating",
        0,
        None,
        (),
        "",
    )


def test_a_toml_file_with_every_field_and_a_preset_written_out(tmp_path: Path) -> None:
    (tmp_path / "session.jsonl").write_text("{}\n")
    path = tmp_path / "study.toml"
    path.write_text(
        'name = "three-or-five"\nassignment = "shuffled"\nseed = 4\nreplay = "session.jsonl"\n'
        'prompts = ["help"]\nnote = "Thank you!"\n'
        'presets = ["chips", { name = "five", shown_before_fold = 5 }]\n'
    )
    plan = load(path, BUILT_IN)
    assert plan.preset_names == ("chips", "five") and plan.presets[1].shown_before_fold == 5
    assert (plan.assignment, plan.seed, plan.replay, plan.prompts) == (
        "shuffled",
        4,
        tmp_path / "session.jsonl",
        ("help",),
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{\n  "name": "x",\n  "presets": ["chips"]\n}',
            r"s\.json line 3: presets: List should have at least 2",
        ),
        (
            '{\n  "name": "x",\n  "presets": ["chips", "cards"]\n}',
            r"line 3: presets\[1\]: no preset is named 'cards'",
        ),
        (
            '{\n  "name": "x",\n  "presets": ["chips", "list"],\n  "assignment": "random"\n}',
            r"line 4: assignment: Input should be 'alternating' or 'shuffled'",
        ),
        ('{"name": "x", "presets": ["chips", "list"], "colour": 1}', r"line 1: colour: Extra inputs"),
        ('{\n  "presets": ["chips", "list"]\n}', r"s\.json: name: Field required"),
        (
            '{\n  "name": "x",\n  "presets": ["chips", {"name": "y", "density": "airy"}]\n}',
            r"line 3: presets\[1\]: density: Input should be",
        ),
        (
            '{\n  "name": "x",\n  "presets": ["chips", "list"],\n  "replay": "gone.jsonl"\n}',
            r"line 4: replay: .* is not a file",
        ),
        ('{\n  "name": "x",\n  "presets": ["chips", "chips"]\n}', r"line 3: presets: each preset once"),
        ('{\n  "name": "x",,\n}', r"s\.json line 2: not valid JSON"),
    ],
)
def test_a_file_that_does_not_validate_names_the_field_and_the_line(
    text: str, message: str, tmp_path: Path
) -> None:
    with pytest.raises(StudyFileError, match=message):
        parse(text, tmp_path / "s.json", BUILT_IN)


def test_a_toml_mistake_names_the_line(tmp_path: Path) -> None:
    with pytest.raises(StudyFileError, match=r"line 2: seed: Input should be a valid integer"):
        parse('name = "x"\nseed = "four"\npresets = ["chips", "list"]\n', tmp_path / "s.toml", BUILT_IN)
