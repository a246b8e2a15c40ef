"""The settings file's shape: what its two sections may hold, as pydantic models, and its errors in words.

The file is JSON with comments and trailing commas, as Zed writes it (read by `json5`); keys this
program does not use (Zed's other settings) are left alone. Values are checked strictly (a number is
not a string). Every problem is a `ConfigError` whose text names the file, the entry and what is wrong
with it: pydantic finds it, `_problem` says it as a person would. `agent_config` turns the entries into
the agents and MCP servers a server runs (a remote agent's URL and headers are expanded there).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import json5
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import ErrorDetails

from webclient.errors import SettingsError


class ConfigError(SettingsError):
    """The settings file cannot be used; the text names the file, the entry and the problem."""


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_env_name(name: str) -> bool:
    """Whether `name` can be an environment variable's: letters, digits and `_`, not first a digit."""
    return _ENV_NAME.fullmatch(name) is not None


def check_env(values: Mapping[str, str], where: str) -> None:
    """ConfigError unless every name can be an environment variable's and no value holds a NUL byte
    (a process cannot start with either, so such a value is refused before it is used or saved)."""
    problem = env_problem(values, where)
    if problem is not None:
        raise ConfigError(problem)


def env_problem(values: Mapping[str, str], where: str) -> str | None:
    """What makes `values` unusable as environment variables (see `check_env`), or None."""
    for name, value in values.items():
        if not is_env_name(name):
            return f"{where}: {name!r} cannot be the name of an environment variable"
        if "\0" in value:
            return f"{where}.{name}: a value cannot hold a NUL character"
    return None


def _usable_env(values: dict[str, str]) -> dict[str, str]:
    problem = env_problem(values, "")
    if problem is not None:  # said after the field's place in the file (`_problem`)
        raise ValueError(problem)
    return values


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("blank")
    return value


def _http_url(value: str) -> str:
    if not value.startswith(("http://", "https://")):
        raise ValueError("not http")
    return value


Env = Annotated[dict[str, str], AfterValidator(_usable_env)]
NonBlank = Annotated[str, AfterValidator(_not_blank)]


class _Entry(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class AgentEntry(_Entry):
    """An `agent_servers` entry: a `command` run here, or the `url` of an agent elsewhere."""

    command: NonBlank | None = None
    args: list[str] = []
    env: Env = {}
    # A remote agent's fields are expanded and checked by `remote_config` (`${NAME}` from the environment).
    url: Any = None
    headers: Any = None
    local_tools: Any = Field(False, alias="localTools")
    cwd: Any = None

    @property
    def remote(self) -> bool:
        return "url" in self.model_fields_set

    @model_validator(mode="after")
    def _runs_somewhere(self) -> AgentEntry:
        if self.remote and self.command is not None:
            raise ValueError('has both a "command" and a "url"; an agent runs here or elsewhere')
        if not self.remote and self.command is None:
            raise ValueError('"command" is missing or not a non-empty string')
        return self


class McpEntry(_Entry):
    """A `context_servers` entry: a command run over stdio, or an http(s) `url`; neither (an extension's
    entry) is left out."""

    command: NonBlank | None = None
    args: list[str] = []
    env: Env | None = None
    url: Annotated[str, AfterValidator(_http_url)] | None = None
    headers: dict[str, str] | None = None

    @model_validator(mode="before")
    @classmethod
    def _older_shape(cls, data: Any) -> Any:
        """Zed's older shape, `{"command": {"path", "args", "env"}}`, read as the flat one."""
        if isinstance(data, dict) and isinstance(nested := data.get("command"), dict):
            return {**nested, "command": nested.get("path")}
        return data


class SettingsFile(_Entry):
    """The file: named agents and named MCP servers, each section optional (null: empty)."""

    agent_servers: dict[str, AgentEntry] | None = None
    context_servers: dict[str, McpEntry] | None = None


def read_settings_file(text: str, path: Path) -> SettingsFile:
    """The settings in `text` as read from `path`; ConfigError naming the file, the entry and the problem."""
    try:
        data = json5.loads(text) if text.strip() else {}
    except ValueError as exc:
        # json5 says "<string>:LINE Unexpected ..."; the file name is already in front of it.
        said = str(exc).removeprefix("<string>:").replace("\n", " ")
        raise ConfigError(f"{path}: not valid JSON: {said}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the file must hold one JSON object")
    try:
        return SettingsFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{path}: {_problem(exc.errors()[0])}") from None


# What a value of the wrong type (or an empty one) in each field should be.
_SHOULD_BE = {
    "command": '"command" is not a non-empty string',
    "url": '"url" must be an http or https URL',
    "args": "must be a list of strings",
    "env": "must be an object of string values",
    "headers": "must be an object of string values",
}
# Fields named inside the entry's sentence (`agent_servers.A: "command" is ...`); the others are places.
_QUOTED = frozenset({"command", "url"})


def _problem(error: ErrorDetails) -> str:
    """One validation error as a sentence: where in the file (section.entry[.field]), then what is wrong."""
    loc = [str(part) for part in error["loc"]]
    if len(loc) == 1:
        return f"{loc[0]!r} must be an object of named entries"
    section, entry, field = loc[0], loc[1], loc[2] if len(loc) > 2 else None
    where = f"{section}.{entry}"
    if field is None:
        if error["type"] == "model_type":
            shape = 'an object with a "command" or a "url"' if section == "agent_servers" else "an object"
            return f"{where}: must be {shape}"
        return f"{where}: {_own_words(error)}"
    if error["type"] == "value_error" and field == "env":  # `env_problem`'s words, after the place
        return f"{where}.{field}{_own_words(error)}"
    said = _SHOULD_BE.get(field, f'"{field}" has a value of the wrong type')
    return f"{where}: {said}" if field in _QUOTED else f"{where}.{field}: {said}"


def _own_words(error: ErrorDetails) -> str:
    """The text of a ValueError one of our validators raised (pydantic prefixes "Value error, ")."""
    return str(error.get("ctx", {}).get("error", error["msg"]))
