"""The stored copies a server offers: which the sidebar lists, and what opening, copying or deleting one
reads from the transcript store.

A copy is listed unless something better shows the same conversation: its session is still open here
(its keeper still writes it), or its agent lists that session and can load or resume it (Load is the
better way back; a session loaded again is kept under a new key, and while the agent lists it neither
copy shows). An agent session id alone says nothing more: an agent that cannot load sessions may give
the same ids again after a restart, to other conversations.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from webclient.domain.kept.entries import KeptCopy, KeptSummary, copy_text, rebuild
from webclient.domain.kept.store import TranscriptStore
from webclient.domain.route import AgentRoute
from webclient.domain.sidebar import KeptLink
from webclient.domain.transcript import Transcript
from webclient.errors import Refused

# The most copies the sidebar lists (the most recent; it shows the first 5 and folds the rest away), so
# that its frames stay small; the rest are counted, and go as the store's bounds prune them.
LISTED = 200
GONE = "that stored copy is gone (it was deleted, or pruned by the store's bounds)"


@dataclass(frozen=True)
class Elsewhere:
    """What else shows a conversation, so that its copy is not listed: the keys still being written by
    open sessions, and the (agent key, session id) pairs their agent lists and can load or resume."""

    writing: frozenset[str] = frozenset()
    loadable: frozenset[tuple[str, str]] = frozenset()

    @classmethod
    def of(cls, writing: Iterable[str], routes: Iterable[AgentRoute[Any]]) -> Elsewhere:
        """From the keys open sessions write, and each agent's stored sessions."""
        loadable = (
            (route.key, stored.session_id)
            for route in routes
            if route.capabilities().load_session or route.capabilities().resume_session
            for stored in route.stored
        )
        return cls(writing=frozenset(writing), loadable=frozenset(loadable))


def listed(
    summaries: Iterable[KeptSummary], elsewhere: Elsewhere, current: str | None = None
) -> tuple[tuple[KeptLink, ...], int]:
    """The copies to list, the most recent first (at most `LISTED`), and how many more there are.
    `summaries` come the most recently written first; `current` is the key of the copy a page shows."""
    links: list[KeptLink] = []
    for summary in summaries:
        if summary.key in elsewhere.writing:
            continue
        if summary.session_id is not None and (summary.agent_key, summary.session_id) in elsewhere.loadable:
            continue
        links.append(
            KeptLink(
                key=summary.key,
                title=summary.title,
                agent=summary.agent_label,
                saved_at=summary.updated,
                current=summary.key == current,
            )
        )
    return tuple(links[:LISTED]), max(len(links) - LISTED, 0)


class KeptCopies:
    """The store's copies as the server offers them: the list it last read, and what a copy opens."""

    def __init__(self, store: TranscriptStore) -> None:
        self.store = store
        self.summaries: tuple[KeptSummary, ...] = ()

    async def refresh(self) -> None:
        """Read the list again (after a start, a session closed, a copy deleted)."""
        self.summaries = tuple(await self.store.summaries())

    async def opened(self, key: str) -> tuple[KeptSummary, KeptCopy, Transcript]:
        """A copy to show: what it is, and its entries as a transcript; Refused when it is gone."""
        kept = await self.store.load(key)
        if kept is None:
            raise Refused(GONE)
        summary = kept.summary
        copy = KeptCopy(key=summary.key, title=summary.title, saved_at=summary.updated)
        return summary, copy, rebuild(kept.entries)

    async def text(self, key: str) -> tuple[KeptSummary, str]:
        """A copy's conversation as text for a new session's composer (`entries.copy_text`)."""
        kept = await self.store.load(key)
        if kept is None:
            raise Refused(GONE)
        return kept.summary, copy_text(kept.summary.title, kept.entries)

    async def delete(self, key: str) -> None:
        """Delete a copy from the store for good; Refused when it was not there."""
        deleted = await self.store.delete(key)
        await self.refresh()
        if not deleted:
            raise Refused(self.store.problem or GONE)
