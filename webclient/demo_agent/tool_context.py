"""What a tool turn of the demo agent works with; the tools and the terminals they run take it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from .blocks import JsonDict, to_json
from .features import ClientFeatures
from .session import DemoSession
from .updates import ClientChannel
from .workspace import Workspace


@dataclass(slots=True)
class ToolContext:
    """What a tool turn works with: the client, the session, and the running turn's cancel flag."""

    channel: ClientChannel
    live: DemoSession
    features: ClientFeatures
    cancelled: asyncio.Event

    @property
    def session_id(self) -> str:
        return self.live.session_id

    @property
    def workspace(self) -> Workspace:
        return self.live.workspace

    async def send(self, update: Any) -> None:
        await self.channel.session_update(self.session_id, json_of(update))


def json_of(update: Any) -> JsonDict:
    """An update built with the SDK's helpers as the JSON it goes out as (a dict stays as it is)."""
    return update if isinstance(update, dict) else to_json(update)
