"""The preset lab (`/presets`): two presets side by side, each a live preview of the page's own suggestions
UI at real size (a desktop column and a 390 px phone), with knobs that change them.

A preview is a document of its own (an iframe's `srcdoc`): the composer area as the conversation page has
it, with the page's scripts, over a sample list of suggestions rendered with the preset. Nothing in it
reaches an agent: choosing a suggestion shows what would be sent (`static/preset_lab.js`). The presets as
they are set can be downloaded as a presets file for a study.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from webclient.acp.suggestions import parse_update
from webclient.domain.state import SessionState
from webclient.views import presentation
from webclient.views.presets import Preset, PresetError, build
from webclient.views.render import environment

KNOBS = ("style", "shown_before_fold", "fold", "fold_size", "density", "text_limit")
SIDES = ("a", "b")
DEFAULTS = {"a": "chips", "b": "list"}
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
    """One of the two presets: its key (`a`, `b`), the preset, and the error its knobs made, if any."""

    key: str
    preset: Preset
    base: str
    error: str | None
    desktop: str  # the previews' documents
    phone: str


def sample(workspace: str) -> SessionState:
    """The list every preview shows: short and long suggestions, and one with a file of the workspace."""
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


def side(key: str, query: Mapping[str, str], catalog: Mapping[str, Preset], workspace: str) -> Side:
    """Side `key`'s preset: its base preset with the knobs the query sets; knobs that do not validate
    leave the base as it is and say why."""
    base_name = query.get(f"{key}_base", DEFAULTS[key])
    base = catalog.get(base_name) or catalog[DEFAULTS[key]]
    knobs = {name: query[f"{key}_{name}"] for name in KNOBS if query.get(f"{key}_{name}", "").strip()}
    error = None
    preset = base
    if knobs:
        fields = base.model_dump(exclude={"placement", "label"}) | knobs
        fields["name"] = f"{base.name}-{key}"[:40]
        if fields.get("style") == "ghost":
            fields["placement"] = "in_composer"
        try:
            preset = build(fields, f"preset {key.upper()}")
        except PresetError as exc:
            error = str(exc)
    return Side(
        key,
        preset,
        base.name,
        error,
        preview(preset, workspace, "desktop"),
        preview(preset, workspace, "phone"),
    )


def preview(preset: Preset, workspace: str, layout: str) -> str:
    """One live preview document of the sample list presented with `preset`."""
    state = sample(workspace)
    presentation.assign(state, preset)
    template = environment().get_template("preset_preview.html")
    return template.render(
        state=state, preset=preset, layout=layout, suggestion_style=preset.style, oob=False
    )


def page(sides: Sequence[Side], catalog: Mapping[str, Preset], query: Mapping[str, str]) -> str:
    template = environment().get_template("preset_lab.html")
    return template.render(sides=sides, catalog=list(catalog), query=query, knobs=KNOBS)


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
