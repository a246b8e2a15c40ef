"""The sessions that show stored copies: a copy opens read only as a session of its own (no agent is
attached to it, it takes no prompt), is copied into a new session as a draft, or is deleted for good,
and every session that showed it closes.

The registry owns the sessions; these operations know it only as a `CopyHost`, as a route knows it as a
`RouteHost` (the modules do not import each other).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic, Protocol

from webclient.domain.changes import SinkT
from webclient.domain.kept.copies import KeptCopies
from webclient.domain.live_session import LiveSession


class CopyHost(Protocol[SinkT]):
    """What the copies' sessions need of whoever owns the sessions (the registry)."""

    @property
    def sessions(self) -> Mapping[str, LiveSession[SinkT]]:
        """Every session, by local id."""
        ...

    @property
    def agents(self) -> Mapping[str, Any]:
        """The configured agents, by key."""
        ...

    def new_session(self, agent_key: str | None = None) -> LiveSession[SinkT]:
        """A new session with this agent (None: the first one)."""
        ...

    def add_reader(self, agent_key: str, agent_label: str) -> LiveSession[SinkT]:
        """A new session no agent is attached to, listed among the sessions, not started yet."""
        ...

    async def drop(self, live: LiveSession[SinkT]) -> None:
        """Close a session and forget it."""
        ...

    def refresh_sidebars(self) -> None:
        """Every sidebar shows the sessions and the copies again."""
        ...


class CopySessions(Generic[SinkT]):
    """Opens, copies and deletes the copies `copies` offers, as sessions of `host`."""

    def __init__(self, host: CopyHost[SinkT], copies: KeptCopies) -> None:
        self.host = host
        self.copies = copies

    async def refresh(self) -> None:
        """Read the list of copies again, and show it in every sidebar."""
        await self.copies.refresh()
        self.host.refresh_sidebars()

    def views(self, key: str) -> list[LiveSession[SinkT]]:
        """The sessions that show the stored copy `key`."""
        shown = self.host.sessions.values()
        return [s for s in shown if s.state.kept is not None and s.state.kept.key == key]

    async def open(self, key: str) -> LiveSession[SinkT]:
        """Show a stored copy read only, as a session of its own that no agent is attached to and that
        takes no prompt (the one that shows it already, if any); Refused when the copy is gone."""
        if shown := self.views(key):
            return shown[0]
        summary, copy, transcript = await self.copies.opened(key)
        live = self.host.add_reader(summary.agent_key, summary.agent_label)
        live.show_copy(copy, transcript)
        live.start()
        self.host.refresh_sidebars()
        return live

    async def copy_into_new_session(self, key: str) -> tuple[LiveSession[SinkT], str]:
        """A new session with the copy's agent (the first one if it is no longer configured), and the
        copy's conversation as text for its composer: nothing is sent until the user sends it."""
        summary, text = await self.copies.text(key)
        agent_key = summary.agent_key if summary.agent_key in self.host.agents else None
        return self.host.new_session(agent_key), text

    async def delete(self, key: str) -> None:
        """Delete a stored copy for good: from the store, and every session that showed it closes."""
        await self.copies.delete(key)
        for view in self.views(key):
            await self.host.drop(view)
        self.host.refresh_sidebars()
