"""Session modes and config options: our small models of them, made from the agent's wire dicts here.

An agent offers modes and config options in its `session/new`, `session/load` and `session/resume`
results, repeats config options in `config_option_update` and `session/set_config_option` answers.
Invalid items are skipped (the schema says so), never fatal; nothing here raises on agent input.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from acp import schema
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class Mode(_Model):
    id: str
    name: str
    description: str | None = None


class ConfigChoice(_Model):
    value: str
    name: str
    description: str | None = None


class ConfigGroup(_Model):
    """Choices under one header; `name` is None for an ungrouped list."""

    name: str | None
    choices: tuple[ConfigChoice, ...]


class ConfigOption(_Model):
    """A select (`current` is a value id) or a boolean toggle (`current` is a bool)."""

    id: str
    name: str
    kind: Literal["select", "boolean"]
    current: str | bool
    description: str | None = None
    groups: tuple[ConfigGroup, ...] = ()
    category: str | None = None  # "mode", "model", "thought_level", …: UX hints only

    @property
    def values(self) -> frozenset[str]:
        return frozenset(choice.value for group in self.groups for choice in group.choices)

    def accepts(self, value: str | bool) -> bool:
        if self.kind == "boolean":
            return isinstance(value, bool)
        return isinstance(value, str) and value in self.values


_OPTION_ADAPTER: TypeAdapter[Any] = TypeAdapter(
    Annotated[
        schema.SessionConfigOptionSelect | schema.SessionConfigOptionBoolean, Field(discriminator="type")
    ]
)


def config_option_from_sdk(model: Any) -> ConfigOption:
    """One SDK config option model (select or boolean) as ours."""
    if isinstance(model, schema.SessionConfigOptionBoolean):
        return ConfigOption(
            id=model.id,
            name=model.name,
            description=model.description,
            kind="boolean",
            current=model.current_value,
            category=_category(model.category),
        )
    groups: list[ConfigGroup] = []
    flat: list[ConfigChoice] = []
    for entry in model.options:
        if isinstance(entry, schema.SessionConfigSelectGroup):
            groups.append(ConfigGroup(name=entry.name, choices=tuple(_choice(o) for o in entry.options)))
        else:
            flat.append(_choice(entry))
    if flat:
        groups.insert(0, ConfigGroup(name=None, choices=tuple(flat)))
    return ConfigOption(
        id=model.id,
        name=model.name,
        description=model.description,
        kind="select",
        current=model.current_value,
        groups=tuple(groups),
        category=_category(model.category),
    )


def config_options_from_wire(raw: Any) -> tuple[ConfigOption, ...]:
    """A `configOptions` list as our models; invalid or unknown items are left out."""
    if not isinstance(raw, list):
        return ()
    options: list[ConfigOption] = []
    for item in raw:
        try:
            options.append(config_option_from_sdk(_OPTION_ADAPTER.validate_python(item)))
        except (ValidationError, ValueError, TypeError):
            continue
    return tuple(options)


def modes_from_wire(raw: Any) -> tuple[tuple[Mode, ...], str | None]:
    """A `modes` (SessionModeState) object as (available modes, current mode id); ((), None) if absent."""
    if not isinstance(raw, dict):
        return (), None
    modes: list[Mode] = []
    available = raw.get("availableModes")
    for item in available if isinstance(available, list) else ():
        try:
            model = schema.SessionMode.model_validate(item)
        except (ValidationError, ValueError, TypeError):
            continue
        modes.append(Mode(id=model.id, name=model.name, description=model.description))
    current = raw.get("currentModeId")
    return tuple(modes), current if isinstance(current, str) else None


def _category(value: Any) -> str | None:
    # The schema also allows an object (a custom category); only the named ones change what we show.
    return value if isinstance(value, str) else None


def _choice(model: schema.SessionConfigSelectOption) -> ConfigChoice:
    return ConfigChoice(value=model.value, name=model.name, description=model.description)
