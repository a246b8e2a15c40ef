"""What the sidebar lists beside a session: the live sessions, the agent's stored ones, the copies
webclient kept, and the agents a new session can start with; and the pure builder of one sidebar."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from webclient.acp.models import AgentCapabilities


@dataclass(frozen=True)
class SessionLink:
    """A live session in the sidebar, with the name of the agent it talks to."""

    local_id: str
    title: str
    status: str
    current: bool
    agent: str = ""


@dataclass(frozen=True)
class AgentChoice:
    """An agent "New session" can start a session with."""

    key: str
    name: str


@dataclass(frozen=True)
class StoredSession:
    """A session the agent keeps (from `session/list`) that can be loaded or resumed."""

    session_id: str
    title: str | None
    updated_at: str | None


@dataclass(frozen=True)
class KeptLink:
    """A transcript webclient kept (`key` in its store), of a session no longer open here that its agent
    cannot load: it opens read only. `saved_at` is when it was last written (seconds since the epoch)."""

    key: str
    title: str
    agent: str
    saved_at: float
    current: bool = False


@dataclass(frozen=True)
class Sidebar:
    live: tuple[SessionLink, ...] = ()
    stored: tuple[StoredSession, ...] = ()
    can_load: bool = False
    can_resume: bool = False
    can_list: bool = False
    can_delete: bool = False
    agents: tuple[AgentChoice, ...] = ()
    current_agent: str = ""
    kept: tuple[KeptLink, ...] = ()  # the most recent first, at most `kept.copies.LISTED`
    kept_more: int = 0  # how many older copies are not listed


def changed_parts(old: Sidebar, new: Sidebar) -> tuple[bool, bool]:
    """Whether the sessions (live and the agent's stored ones: their states change at every turn) and
    whether the stored copies (which change when one is kept or deleted) differ; each is a region."""
    copies = (old.kept, old.kept_more) != (new.kept, new.kept_more)
    return replace(old, kept=new.kept, kept_more=new.kept_more) != new, copies


@dataclass(frozen=True)
class AgentOffer:
    """What one agent offers the sidebars of its sessions: what it can do with the sessions it keeps,
    and those it lists that are not open here."""

    key: str
    capabilities: AgentCapabilities
    stored: tuple[StoredSession, ...] = ()


def build_sidebar(
    current: str,
    live: Sequence[SessionLink],
    agent: AgentOffer,
    agents: tuple[AgentChoice, ...],
    kept: tuple[tuple[KeptLink, ...], int] = ((), 0),
) -> Sidebar:
    """The sidebar beside the session with local id `current`: every `live` session (that one marked
    current), what its `agent` offers, the agents a new session can start with, and the `kept` copies
    listed (with how many more there are)."""
    caps = agent.capabilities
    return Sidebar(
        live=tuple(replace(link, current=link.local_id == current) for link in live),
        stored=agent.stored,
        can_load=caps.load_session,
        can_resume=caps.resume_session,
        can_list=caps.list_sessions,
        can_delete=caps.delete_session,
        agents=agents,
        current_agent=agent.key,
        kept=kept[0],
        kept_more=kept[1],
    )
