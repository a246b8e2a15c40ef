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
    update_user_message,
)
from acp.schema import AvailableCommand, ContentChunk

from .blocks import JsonDict, text, to_json

__all__ = [
    "UpdateSink",
    "agent_message",
    "agent_thought",
    "available_commands",
    "prompt_suggestions",
    "replayed",
]


class UpdateSink(Protocol):
    """Where ``session/update`` notifications go (the JSON-RPC connection, in production)."""

    async def session_update(self, session_id: str, update: JsonDict) -> None:
        """Send ``{"sessionId": session_id, "update": update}``; the update is already wire JSON."""
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
