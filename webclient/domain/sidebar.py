"""What the sidebar lists beside a session: the live sessions, the agent's stored ones, the copies
webclient kept, and the agents a new session can start with."""

from __future__ import annotations

from dataclasses import dataclass, replace


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
