"""A study file (`webclient --study PATH`, TOML or JSON): what a presentation study compares and how.

The smallest valid file is `{"name": "chips-vs-list", "presets": ["chips", "list"]}`; every other field
has a default:

- `presets`: two or more, each the name of a built-in preset or one of the project's presets file, or a
  preset written out in place (a table with its own `name`);
- `assignment`: `alternating` (default) or `shuffled`, with `seed` (default 0) for a shuffle that is the
  same at every run;
- `replay`: a protocol inspector download the study's sessions play (relative to the study file), so
  that every participant sees the same answers and suggestions;
- `prompts`: prompts to suggest to participants; `note`: a note shown to them before they agree.

`load` raises `StudyFileError` naming the field and, where it can find it, the line.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from webclient.errors import SettingsError
from webclient.views.presets import NAME_PATTERN, Preset, PresetError, build, describe


class StudyFileError(SettingsError):
    """The study file cannot be used; the text names the file, the field and the line."""


class StudyFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=NAME_PATTERN)
    presets: list[str | dict[str, Any]] = Field(min_length=2, max_length=6)
    assignment: Literal["alternating", "shuffled"] = "alternating"
    seed: int = 0
    replay: str | None = None
    prompts: list[str] = Field(default_factory=list, max_length=20)
    note: str = Field(default="", max_length=2000)

    @field_validator("prompts")
    @classmethod
    def _short_prompts(cls, value: list[str]) -> list[str]:
        for prompt in value:
            if not prompt.strip() or len(prompt) > 500:
                raise ValueError("each prompt is a text of 1 to 500 characters")
        return value


@dataclass(frozen=True)
class StudyPlan:
    """A validated study: its file's fields, with its presets resolved and its recording's path."""

    name: str
    presets: tuple[Preset, ...]
    assignment: Literal["alternating", "shuffled"]
    seed: int
    replay: Path | None
    prompts: tuple[str, ...]
    note: str
    path: Path

    @property
    def preset_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.presets)

    def preset(self, name: str) -> Preset | None:
        return next((p for p in self.presets if p.name == name), None)


def load(path: Path, catalog: Mapping[str, Preset]) -> StudyPlan:
    """The study in `path`, its presets named in `catalog` or written out in place."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise StudyFileError(f"{path}: cannot be read: {exc}") from None
    return parse(text, path, catalog)


def parse(text: str, path: Path, catalog: Mapping[str, Preset]) -> StudyPlan:
    data = _data(text, path)
    try:
        study = StudyFile.model_validate(data)
    except ValidationError as exc:
        loc = exc.errors()[0]["loc"]
        raise StudyFileError(f"{_where(path, text, loc)}: {describe(exc)}") from None
    presets = []
    for number, entry in enumerate(study.presets):
        where = _where(path, text, ("presets", number))
        if isinstance(entry, str):
            found = catalog.get(entry)
            if found is None:
                known = ", ".join(catalog)
                raise StudyFileError(
                    f"{where}: presets[{number}]: no preset is named {entry!r} (known: {known})"
                )
            presets.append(found)
        else:
            try:
                presets.append(build(entry, f"presets[{number}]"))
            except PresetError as exc:
                raise StudyFileError(f"{where}: {exc}") from None
    names = [p.name for p in presets]
    if len(set(names)) != len(names):
        raise StudyFileError(f"{_where(path, text, ('presets',))}: presets: each preset once, not {names}")
    replay = (path.parent / study.replay).resolve() if study.replay else None
    if replay is not None and not replay.is_file():
        raise StudyFileError(f"{_where(path, text, ('replay',))}: replay: {replay} is not a file")
    return StudyPlan(
        study.name,
        tuple(presets),
        study.assignment,
        study.seed,
        replay,
        tuple(study.prompts),
        study.note,
        path,
    )


def _data(text: str, path: Path) -> Any:
    if path.suffix == ".json" or text.lstrip().startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise StudyFileError(f"{path} line {exc.lineno}: not valid JSON: {exc.msg}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise StudyFileError(f"{path}: not valid TOML: {exc}") from None


def _where(path: Path, text: str, loc: tuple[Any, ...]) -> str:
    """`PATH line N` for the line where the field `loc` is written (its first key), or `PATH`."""
    key = next((part for part in loc if isinstance(part, str)), None)
    if key is None:
        return str(path)
    pattern = re.compile(rf'^\s*(?:"{re.escape(key)}"\s*:|{re.escape(key)}\s*=|\[+\s*{re.escape(key)}\s*\]+)')
    inline = re.compile(rf'"{re.escape(key)}"\s*:')
    for number, line in enumerate(text.splitlines(), 1):
        if pattern.search(line) or inline.search(line):
            return f"{path} line {number}"
    return str(path)
