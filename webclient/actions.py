"""What a browser tab may ask for over its WebSocket, validated before anything acts on it.

htmx's ws extension sends a form's fields as JSON, plus a `HEADERS` object that we ignore. Anything that
does not parse into one of these actions is answered with a visible error and changes nothing.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

MAX_PROMPT_CHARS = 200_000


class _Action(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class PromptAction(_Action):
    """The composer's text, and the attachments it holds as JSON blocks (htmx sends one value as a
    string and several as a list)."""

    action: Literal["prompt"]
    text: Annotated[str, Field(max_length=MAX_PROMPT_CHARS)]
    attachments: list[Annotated[str, Field(max_length=MAX_PROMPT_CHARS)]] = []

    @field_validator("attachments", mode="before")
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value


class EditSuggestionAction(_Action):
    """Take suggestion `index` of list `generation` into the composer (its attachments become pills)."""

    action: Literal["edit_suggestion"]
    generation: Annotated[int, Field(ge=0)]
    index: Annotated[int, Field(ge=0)]


class SuggestionAction(_Action):
    """Send suggestion `index` of the list numbered `generation`; `auto` marks an auto-send."""

    action: Literal["suggestion"]
    generation: Annotated[int, Field(ge=0)]
    index: Annotated[int, Field(ge=0)]
    auto: bool = False


class CancelAction(_Action):
    action: Literal["cancel"]


class RestartAction(_Action):
    action: Literal["restart"]


class AuthenticateAction(_Action):
    action: Literal["authenticate"]
    method_id: Annotated[str, Field(min_length=1, max_length=200)]


BrowserAction = Annotated[
    PromptAction
    | SuggestionAction
    | EditSuggestionAction
    | CancelAction
    | RestartAction
    | AuthenticateAction,
    Field(discriminator="action"),
]
_ADAPTER: TypeAdapter[BrowserAction] = TypeAdapter(BrowserAction)


class BadAction(ValueError):
    """A browser message that is not a valid action; the text is safe to show."""


def parse_action(raw: str) -> BrowserAction:
    """Parse one WebSocket text frame from a tab; raises BadAction with a readable reason."""
    try:
        return _ADAPTER.validate_json(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "message"
        raise BadAction(
            f"the browser sent a request this server does not understand ({where}: {first['msg']})"
        ) from None
