"""What a browser tab may ask for over its WebSocket, validated before anything acts on it.

htmx's ws extension sends a form's fields as JSON, plus a `HEADERS` object that we ignore. Anything that
does not parse into one of these actions is answered with a visible error and changes nothing.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from webclient.domain.prompt import MAX_ATTACHMENTS, MAX_PROMPT_CHARS


class _Action(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class PromptAction(_Action):
    """The composer's text (with `⟦name⟧` tokens where files stand) and the opaque ids of the attachments
    it keeps, which the server holds for this tab (htmx sends one value as a string and several as a list)."""

    action: Literal["prompt"]
    text: Annotated[str, Field(max_length=MAX_PROMPT_CHARS)]
    attachments: Annotated[list[Annotated[str, Field(max_length=64)]], Field(max_length=MAX_ATTACHMENTS)] = []

    @field_validator("attachments", mode="before")
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value


class DetachAction(_Action):
    """The user removed attachment `id` from this tab's composer."""

    action: Literal["detach"]
    id: Annotated[str, Field(min_length=1, max_length=64)]


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


class PermissionAction(_Action):
    """Answer permission request `request_id` with one of the agent's options."""

    action: Literal["permission"]
    request_id: Annotated[str, Field(min_length=1, max_length=100)]
    option_id: Annotated[str, Field(min_length=1, max_length=500)]


class SetModeAction(_Action):
    """Switch the session to mode `mode_id` (`session/set_mode`)."""

    action: Literal["set_mode"]
    mode_id: Annotated[str, Field(min_length=1, max_length=500)]


class SetConfigOptionAction(_Action):
    """Set config option `config_id` (`session/set_config_option`).

    A select sends its value id. A boolean's form says `type: boolean` and sends `value` only when its
    checkbox is ticked, so a missing value means off.
    """

    action: Literal["set_config_option"]
    config_id: Annotated[str, Field(min_length=1, max_length=500)]
    type: Literal["select", "boolean"] = "select"
    value: Annotated[str, Field(max_length=500)] | bool | None = None

    @model_validator(mode="after")
    def _value_fits_type(self) -> SetConfigOptionAction:
        if self.type == "boolean":
            if self.value not in (None, True, False, "true", "false", "on"):
                raise ValueError("a boolean option takes true or false")
            object.__setattr__(self, "value", self.value in (True, "true", "on"))
        elif not isinstance(self.value, str) or not self.value:
            raise ValueError("a select option takes a value id")
        return self


class FindFilesAction(_Action):
    """The `@` picker: workspace files whose path matches `query`."""

    action: Literal["find_files"]
    query: Annotated[str, Field(max_length=200)] = ""


class AttachFileAction(_Action):
    """Attach the workspace file at `path` (relative to the workspace) to the composer."""

    action: Literal["attach_file"]
    path: Annotated[str, Field(min_length=1, max_length=1000)]


class AttachImageAction(_Action):
    """Attach a pasted or chosen image (base64) to the composer."""

    action: Literal["attach_image"]
    mime_type: Annotated[str, Field(min_length=1, max_length=100)]
    data: Annotated[str, Field(min_length=1, max_length=8 * 1024 * 1024)]


class InspectorAction(_Action):
    """This tab opened or closed its protocol inspector."""

    action: Literal["inspector"]
    open: bool


class NewSessionAction(_Action):
    """Open a session with one of the configured agents (none named: the one this tab's session uses)."""

    action: Literal["new_session"]
    agent: Annotated[str, Field(max_length=200)] = ""


class OpenSessionAction(_Action):
    """Open a session the agent keeps: `load` replays its history, `resume` reconnects without it."""

    action: Literal["open_session"]
    session_id: Annotated[str, Field(min_length=1, max_length=500)]
    mode: Literal["load", "resume"] = "load"


class DeleteStoredAction(_Action):
    """Delete a session the agent keeps (where it says it can)."""

    action: Literal["delete_stored"]
    session_id: Annotated[str, Field(min_length=1, max_length=500)]


class StoredCopyAction(_Action):
    """Act on a stored copy webclient kept (its key in the store): open it read only, copy its text into
    a new session's composer, or delete it for good."""

    action: Literal["open_copy", "copy_into_new", "delete_copy"]
    key: Annotated[str, Field(pattern=r"^[0-9a-f]{32}$")]


class CloseSessionAction(_Action):
    action: Literal["close_session"]
    local_id: Annotated[str, Field(min_length=1, max_length=50)]


class CancelAction(_Action):
    action: Literal["cancel"]


class WaitingAction(_Action):
    """Cancel a prompt that waits for the turn to end, or take it back into this tab's composer to edit."""

    action: Literal["waiting"]
    op: Literal["cancel", "edit"]
    id: Annotated[str, Field(min_length=1, max_length=64)]


class ResyncAction(_Action):
    """The page found a frame missing (`gap`), or a digest other than its own (`digest`; `seen` is the
    page's): it wants a fresh snapshot. `again`: an earlier request brought none."""

    action: Literal["resync"]
    reason: Literal["gap", "digest", "again"] = "gap"
    seen: Annotated[str, Field(max_length=300)] = ""


class StopWorkAction(_Action):
    """ACP v2: stop one tool call or terminal the agent lets the page stop."""

    action: Literal["stop_work"]
    kind: Literal["tool_call", "terminal"]
    work_id: Annotated[str, Field(min_length=1, max_length=500)]


class RestartAction(_Action):
    action: Literal["restart"]


class AuthenticateAction(_Action):
    action: Literal["authenticate"]
    method_id: Annotated[str, Field(min_length=1, max_length=200)]


class SignInEnvAction(_Action):
    """The values of an env_var sign-in method: its form names each input `var.NAME`."""

    action: Literal["sign_in_env"]
    method_id: Annotated[str, Field(min_length=1, max_length=200)]
    values: dict[Annotated[str, Field(max_length=200)], Annotated[str, Field(max_length=10_000)]] = {}
    remember: bool = False

    @model_validator(mode="before")
    @classmethod
    def _collect_vars(cls, data: object) -> object:
        if not isinstance(data, dict):
            return data
        values = {k.removeprefix("var."): v for k, v in data.items() if k.startswith("var.")}
        return {**data, "values": values, "remember": data.get("remember") in (True, "on", "true")}


class CancelSignInAction(_Action):
    action: Literal["cancel_sign_in"]


BrowserAction = Annotated[
    PromptAction
    | SuggestionAction
    | EditSuggestionAction
    | DetachAction
    | PermissionAction
    | NewSessionAction
    | InspectorAction
    | FindFilesAction
    | AttachFileAction
    | AttachImageAction
    | OpenSessionAction
    | DeleteStoredAction
    | StoredCopyAction
    | CloseSessionAction
    | SetModeAction
    | SetConfigOptionAction
    | CancelAction
    | ResyncAction
    | WaitingAction
    | StopWorkAction
    | RestartAction
    | AuthenticateAction
    | SignInEnvAction
    | CancelSignInAction,
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
