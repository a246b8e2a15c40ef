"""``session/update`` payloads, and the sink the agent sends them through.

Typed SDK models are used where the SDK has them; ``prompt_suggestions_update`` is not in the SDK's closed
``SessionUpdate`` union, so every update is sent as a raw dict and this module builds that dict.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from acp.helpers import (
    update_agent_message,
    update_agent_thought,
    update_available_commands,
    update_current_mode,
    update_user_message,
)
from acp.schema import (
    AvailableCommand,
    ConfigOptionUpdate,
    ContentChunk,
    Cost,
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionInfoUpdate,
    UsageUpdate,
)

from .blocks import JsonDict, text, to_json

__all__ = [
    "ClientChannel",
    "UpdateSink",
    "agent_message",
    "agent_thought",
    "available_commands",
    "config_options",
    "current_mode",
    "prompt_suggestions",
    "replayed",
    "session_title",
    "usage",
]


class UpdateSink(Protocol):
    """Where ``session/update`` notifications go (the JSON-RPC connection, in production)."""

    async def session_update(self, session_id: str, update: JsonDict) -> None:
        """Send ``{"sessionId": session_id, "update": update}``; the update is already wire JSON."""
        ...


class ClientChannel(UpdateSink, Protocol):
    """The sink plus requests to the client (``fs/*``, ``session/request_permission``)."""

    async def request(self, method: str, params: JsonDict) -> Any:
        """Send a request and return its result; a JSON-RPC error raises ``acp.RequestError``."""
        ...


def agent_thought(value: str, message_id: str | None = None) -> JsonDict:
    return _chunk(update_agent_thought(_block(text(value))), message_id)


def agent_message(value: str, message_id: str | None = None) -> JsonDict:
    return _chunk(update_agent_message(_block(text(value))), message_id)


def replayed(role: str, block: JsonDict, message_id: str | None = None) -> JsonDict:
    """A stored message block replayed by ``session/load``: a user or agent message chunk."""
    if role == "user":
        return _chunk(update_user_message(_block(block)), message_id)
    return _chunk(update_agent_message(_block(block)), message_id)


def available_commands(commands: Iterable[AvailableCommand]) -> JsonDict:
    return to_json(update_available_commands(commands))


def current_mode(mode_id: str) -> JsonDict:
    return to_json(update_current_mode(mode_id))


def config_options(options: Iterable[SessionConfigOptionSelect | SessionConfigOptionBoolean]) -> JsonDict:
    return to_json(ConfigOptionUpdate(session_update="config_option_update", config_options=list(options)))


def session_title(title: str, updated_at: str | None = None) -> JsonDict:
    return to_json(
        SessionInfoUpdate(session_update="session_info_update", title=title, updated_at=updated_at)
    )


def usage(used: int, size: int, cost_usd: float) -> JsonDict:
    cost = Cost(amount=cost_usd, currency="USD")
    return to_json(UsageUpdate(session_update="usage_update", used=used, size=size, cost=cost))


def prompt_suggestions(suggestions: Any) -> JsonDict:
    """The RFD's update; ``suggestions`` goes out exactly as given (scenario commands rely on that)."""
    return {"sessionUpdate": "prompt_suggestions_update", "suggestions": suggestions}


def _block(block: JsonDict) -> Any:
    # Validate through the SDK so replayed history can only produce well-formed chunks.
    return ContentChunk.model_validate({"content": block}).content


def _chunk(update: ContentChunk, message_id: str | None) -> JsonDict:
    if message_id is not None:
        update.message_id = message_id
    return to_json(update)
