"""The preset lab (`/presets`): two or three presets side by side, each a live preview of the page's own
suggestions UI at real size (a desktop column and a 390 px phone), with knobs that change them.

A preview is a document of its own (an iframe's `srcdoc`): the composer area as the conversation page has
it, with the page's scripts, over a list of suggestions rendered with the preset: a sample list, or one
pasted as the playground reads it (views/playground.py), each suggestion a diagnostic is about marked.
Nothing in it reaches an agent: choosing a suggestion shows what would be sent (`static/preset_lab.js`).
The presets as they are set can be downloaded as a presets file for a study.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from webclient.acp.models import Suggestion
from webclient.acp.suggestions import parse_update
from webclient.domain.state import SessionState
from webclient.views import playground, presentation, region_models
from webclient.views.presets import Preset, PresetError, build
from webclient.views.render import environment

KNOBS = ("style", "placement", "shown_before_fold", "fold", "fold_size", "density", "text_limit")
SIDES = ("a", "b", "c")  # the third only when it is added
DEFAULTS = {"a": "chips", "b": "list", "c": "ghost"}
SAMPLE_TEXTS = (
    "List the files",
    "Explain how the cart computes the total price, step by step: how discounts and taxes are applied, what "
    "happens with an empty cart, and which functions the checkout calls along the way, so I can review it.",
    "Run the tests",
    "Count to 5",
    "Summarise the notes",
    "Find every TODO in src",
)


@dataclass(frozen=True)
class Side:
    """One of the presets: its key (`a`, `b`), the preset, and the error its knobs made, if any."""

    key: str
    preset: Preset
    base: str
    error: str | None
    desktop: str  # the previews' documents
    phone: str


@dataclass(frozen=True)
class Listing:
    """The list the previews show: the sample, or a pasted one with what the playground says of it."""

    suggestions: tuple[Suggestion, ...]
    reading: playground.Reading | None = None

    @property
    def marked(self) -> set[int]:
        return self.reading.marked if self.reading else set()


def sample(workspace: str) -> SessionState:
    """The sample list: short and long suggestions, and one with a file of the workspace."""
    prompts: list[list[dict[str, Any]]] = [[{"type": "text", "text": t}] for t in SAMPLE_TEXTS]
    readme = Path(workspace, "README.md")
    link = {"type": "resource_link", "name": "README.md", "uri": readme.as_uri()}
    prompts.insert(2, [{"type": "text", "text": "Show me "}, link])
    state = SessionState(workspace=workspace)
    parsed = parse_update(
        {"suggestions": [{"prompt": p} for p in prompts]}, frozenset({"text", "resource_link"})
    )
    state.set_suggestions(parsed.suggestions)
    return state


def listing(paste: str, pick: int, workspace: str) -> Listing:
    """The list to preview: `paste` read as the playground reads it (raises InputError when it cannot be),
    or the sample when nothing is pasted."""
    if not paste.strip():
        return Listing(sample(workspace).suggestions)
    reading = playground.read(paste, [], pick, workspace)
    return Listing(reading.shown.suggestions, reading)


def side(
    key: str,
    query: Mapping[str, str],
    catalog: Mapping[str, Preset],
    workspace: str,
    shown: Listing | None = None,
) -> Side:
    """Side `key`'s preset: its base preset with the knobs the query sets; knobs that do not validate
    leave the base as it is and say why. Its previews show `shown` (the sample list by default)."""
    shown = shown or listing("", 0, workspace)
    base_name = query.get(f"{key}_base", DEFAULTS[key])
    base = catalog.get(base_name) or catalog[DEFAULTS[key]]
    knobs = {name: query[f"{key}_{name}"] for name in KNOBS if query.get(f"{key}_{name}", "").strip()}
    error = None
    preset = base
    if knobs:
        fields = base.model_dump(exclude={"label"}) | knobs
        fields["name"] = f"{base.name}-{key}"[:40]
        # The placement knob offers what suits chips and lists; ghost text has one place, the composer.
        if fields.get("style") == "ghost":
            fields["placement"] = "in_composer"
        elif fields.get("placement") == "in_composer":
            fields["placement"] = "above_composer"
        try:
            preset = build(fields, f"preset {key.upper()}")
        except PresetError as exc:
            error = str(exc)
    return Side(
        key,
        preset,
        base.name,
        error,
        preview(preset, workspace, "desktop", shown),
        preview(preset, workspace, "phone", shown),
    )


def preview(preset: Preset, workspace: str, layout: str, shown: Listing) -> str:
    """One live preview document of `shown` presented with `preset`."""
    state = SessionState(workspace=workspace)
    state.set_suggestions(shown.suggestions)
    presentation.assign(state, preset)
    template = environment().get_template("presets/preview.html")
    document = template.render(
        suggestions=region_models.suggestions(state, preset.style),
        ghost=region_models.ghost(state),
        preset=preset,
        layout=layout,
        suggestion_style=preset.style,
        oob=False,
    )
    return playground.mark(document, shown.marked)


def page(
    sides: Sequence[Side],
    catalog: Mapping[str, Preset],
    query: Mapping[str, str],
    *,
    paste: str = "",
    shown: Listing | None = None,
    error: str | None = None,
) -> str:
    """The lab: the knobs of `sides`, the paste and what is said of it, and the previews."""
    template = environment().get_template("presets/lab.html")
    return template.render(
        sides=sides,
        catalog=list(catalog),
        query=query,
        knobs=KNOBS,
        paste=paste,
        reading=shown.reading if shown else None,
        error=error,
    )


def presets_file(presets: Sequence[Preset]) -> str:
    """The presets as a presets file (TOML), for `--presets` and a study's `presets`."""
    lines = ["# Presets made in webclient's preset lab; use with: webclient --presets THIS --study STUDY", ""]
    for preset in presets:
        lines.append("[[presets]]")
        for name, value in preset.model_dump(exclude_defaults=False).items():
            if value == "" or value is None:
                continue
            lines.append(f"{name} = {_toml(value)}")
        lines.append("")
    return "\n".join(lines)


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'
