"""Session modes and config options: what the demo agent offers and how a choice is validated."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from acp.exceptions import RequestError
from acp.schema import (
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
)

__all__ = ["DEFAULT_MODE", "MODES", "SessionSettings", "mode_state"]

MODES: tuple[SessionMode, ...] = (
    SessionMode(id="ask", name="Ask", description="Answer questions; ask before changing any file"),
    SessionMode(
        id="code", name="Code", description="Make changes to files, still asking permission to write"
    ),
    SessionMode(
        id="architect", name="Architect", description="Plan the work first, then propose the changes"
    ),
)
DEFAULT_MODE = "ask"
MODE_IDS = tuple(mode.id for mode in MODES)

MODEL_CONFIG_ID = "model"
VERBOSE_CONFIG_ID = "verbose"
MODELS: tuple[SessionConfigSelectOption, ...] = (
    SessionConfigSelectOption(value="fast", name="Fast", description="Cheap and quick (the default)"),
    SessionConfigSelectOption(value="thorough", name="Thorough", description="Five times the (pretend) cost"),
)
MODEL_IDS = tuple(model.value for model in MODELS)
# Pretend prices per 1000 tokens of context, in USD, so usage_update has a deterministic cost.
PRICE_PER_1K_USD = {"fast": 0.002, "thorough": 0.01}


def mode_state(current: str) -> SessionModeState:
    return SessionModeState(current_mode_id=current, available_modes=list(MODES))


@dataclass(slots=True)
class SessionSettings:
    """One session's mode and config values; ``boolean_config`` says whether the client may see toggles."""

    boolean_config: bool
    mode: str = DEFAULT_MODE
    model: str = "fast"
    verbose: bool = False

    def set_mode(self, mode_id: str) -> None:
        if mode_id not in MODE_IDS:
            raise RequestError.invalid_params({"modeId": mode_id, "reason": f"known modes: {list(MODE_IDS)}"})
        self.mode = mode_id

    def set_option(self, config_id: str, value: Any) -> None:
        """Apply ``session/set_config_option``; an unknown id or a wrong value is invalid_params."""
        if config_id == MODEL_CONFIG_ID and isinstance(value, str) and value in MODEL_IDS:
            self.model = value
        elif config_id == VERBOSE_CONFIG_ID and self.boolean_config and isinstance(value, bool):
            self.verbose = value
        else:
            raise RequestError.invalid_params(
                {"configId": config_id, "value": value, "reason": "unknown option or invalid value"}
            )

    def config_options(self) -> list[SessionConfigOptionSelect | SessionConfigOptionBoolean]:
        """The full list, as ``session/new`` returns it and ``config_option_update`` repeats it."""
        options: list[SessionConfigOptionSelect | SessionConfigOptionBoolean] = [
            SessionConfigOptionSelect(
                type="select",
                id=MODEL_CONFIG_ID,
                name="Model",
                description="Which (pretend) model answers",
                category="model",
                current_value=self.model,
                options=list(MODELS),
            )
        ]
        if self.boolean_config:
            options.append(
                SessionConfigOptionBoolean(
                    type="boolean",
                    id=VERBOSE_CONFIG_ID,
                    name="Verbose tools",
                    description="Add more detail to tool output",
                    current_value=self.verbose,
                )
            )
        return options

    @property
    def price_per_1k_usd(self) -> float:
        return PRICE_PER_1K_USD[self.model]
