"""Presentation presets: how a list of prompt suggestions is presented, as named, validated data.

A preset says the style (chips, list, ghost text), how many suggestions show before the fold (0: as many
as fit), the fold rule (the room the conversation does not need, as the page folds without a preset; rows
of chips or lines of a list the folded area may take, measured in the page; or characters of suggestion
text, counted here), where the list sits (above the composer, or under the agent's last answer, in the
conversation), its density, and how many characters of a long suggestion show
before "+N characters". The three built-in presets are the page's three styles with the page's values
(views/fold.py). What a preset never changes: a suggestion is shown in full,
with every file it attaches and its hidden characters marked, before anything is sent.

A project keeps its own presets in a TOML or JSON file (`{"presets": [{"name": ..., ...}]}`); each
field left out takes the built-in value of its style. `load` raises `PresetError` naming the field.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from webclient.errors import SettingsError

Style = Literal["chips", "list", "ghost"]
Fold = Literal["room", "rows", "lines", "characters"]
Placement = Literal["above_composer", "under_answer", "in_composer"]
Density = Literal["comfortable", "compact"]
NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,39}$"


class PresetError(SettingsError):
    """A preset or a presets file cannot be used; the text names the file, the preset and the field."""


class Preset(BaseModel):
    """One presentation of suggestions (see the module's docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=NAME_PATTERN)
    style: Style = "chips"
    shown_before_fold: int = Field(default=0, ge=0, le=50)  # 0: as many as fit
    fold: Fold = "room"
    fold_size: int = Field(default=2, ge=1, le=10_000)  # rows, lines or characters, as `fold` says
    placement: Placement = "above_composer"
    density: Density = "comfortable"
    text_limit: int = Field(default=160, ge=20, le=4000)  # characters shown before "+N characters"
    label: str = Field(default="", max_length=80)  # what people read; the name when empty

    @model_validator(mode="after")
    def _placement_fits_the_style(self) -> Preset:
        # Ghost text lives in the composer; chips and lists sit above it or under the agent's last answer.
        # A preset that says otherwise would show one thing and record another.
        if self.style == "ghost" and self.placement != "in_composer":
            raise ValueError("placement: the ghost style shows in the composer")
        if self.style != "ghost" and self.placement == "in_composer":
            where = "above the composer or under the answer"
            raise ValueError(f"placement: the {self.style} style shows {where}")
        return self

    @property
    def title(self) -> str:
        return self.label or self.name

    def first_shown(self, lengths: Sequence[int]) -> int:
        """At most how many of suggestions of these text lengths show before the fold, 0 for as many as
        fit (the room, and rows or lines, are measured in the page, which may fold earlier still)."""
        shown = min(self.shown_before_fold or len(lengths), len(lengths))
        if self.fold != "characters":
            return self.shown_before_fold and shown
        total, count = 0, 0
        for length in lengths[:shown]:
            total += length
            if count and total > self.fold_size:
                break
            count += 1
        return count

    @property
    def fold_area(self) -> int:
        """The rows or lines the folded area may take in the page (0: no limit but the room)."""
        return self.fold_size if self.fold in ("rows", "lines") else 0


BUILT_IN: Mapping[str, Preset] = {
    "chips": Preset(name="chips", label="Chips", style="chips"),
    "list": Preset(name="list", label="List", style="list"),
    "ghost": Preset(name="ghost", label="Ghost text", style="ghost", placement="in_composer"),
}


def build(raw: Any, where: str) -> Preset:
    """A preset from a mapping: the fields it leaves out are those of the built-in preset of its style."""
    if not isinstance(raw, dict):
        raise PresetError(f"{where}: a preset is a table (an object) with a name")
    style = raw.get("style", "chips")
    base = BUILT_IN.get(style) if isinstance(style, str) else None
    defaults = base.model_dump(exclude={"name", "label"}) if base else {}
    try:
        return Preset.model_validate({**defaults, **raw})
    except ValidationError as exc:
        raise PresetError(f"{where}: {describe(exc)}") from None


def describe(exc: ValidationError) -> str:
    """The first problem of a validation error, as `field: what is wrong`."""
    error = exc.errors()[0]
    field = ".".join(str(p) for p in error["loc"]) or "preset"
    message = str(error["msg"]).removeprefix("Value error, ")
    return message if message.startswith(f"{field}:") else f"{field}: {message}"


def parse_file(text: str, path: Path) -> dict[str, Preset]:
    """The presets of a file (TOML, or JSON for a `.json` file), the built-in ones first."""
    try:
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise PresetError(
            f"{path}: not valid {'JSON' if path.suffix == '.json' else 'TOML'}: {exc}"
        ) from None
    raw = data.get("presets") if isinstance(data, dict) else None
    if not isinstance(raw, list):
        raise PresetError(f"{path}: expected a list named presets ([[presets]] in TOML)")
    return with_own(build(entry, f"{path}: presets[{n}]") for n, entry in enumerate(raw))


def with_own(own: Iterable[Preset]) -> dict[str, Preset]:
    """The built-in presets and `own`, refused when two share a name."""
    catalog = dict(BUILT_IN)
    for preset in own:
        if preset.name in catalog:
            raise PresetError(f"preset {preset.name!r}: the name is taken by another preset")
        catalog[preset.name] = preset
    return catalog


def load(path: Path | None) -> dict[str, Preset]:
    """The built-in presets, and a project's own from `path` when given."""
    if path is None:
        return dict(BUILT_IN)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PresetError(f"{path}: cannot be read: {exc}") from None
    return parse_file(text, path)
