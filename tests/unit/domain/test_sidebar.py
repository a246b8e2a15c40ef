"""The pure sidebar builder: the live sessions with the one beside it marked, what its agent offers."""

from __future__ import annotations

from webclient.acp.models import AgentCapabilities
from webclient.domain.sidebar import (
    AgentChoice,
    AgentOffer,
    KeptLink,
    SessionLink,
    StoredSession,
    build_sidebar,
)

LINKS = [
    SessionLink(local_id="s1", title="first", status="ready", current=False, agent="Demo"),
    SessionLink(local_id="s2", title="second", status="working", current=False, agent="Other"),
]
AGENTS = (AgentChoice(key="demo", name="Demo"), AgentChoice(key="other", name="Other"))


def test_the_sidebar_marks_the_session_it_is_beside_and_shows_what_that_sessions_agent_offers() -> None:
    stored = (StoredSession(session_id="old", title="yesterday", updated_at=None),)
    caps = AgentCapabilities(load_session=True, delete_session=True)
    offer = AgentOffer("other", caps, stored)
    copy = KeptLink(key="k", title="kept", agent="Demo", saved_at=1.0)

    sidebar = build_sidebar("s2", LINKS, offer, AGENTS, ((copy,), 3))

    assert [(link.local_id, link.current) for link in sidebar.live] == [("s1", False), ("s2", True)]
    assert sidebar.stored == stored and sidebar.current_agent == "other" and sidebar.agents == AGENTS
    assert (sidebar.can_load, sidebar.can_resume, sidebar.can_list, sidebar.can_delete) == (
        True,
        False,
        False,
        True,
    )
    assert sidebar.kept == (copy,) and sidebar.kept_more == 3


def test_a_stored_copys_sidebar_marks_no_live_session() -> None:
    sidebar = build_sidebar("s9", LINKS, AgentOffer("demo", AgentCapabilities()), AGENTS)

    assert not any(link.current for link in sidebar.live)
    assert (sidebar.can_load, sidebar.stored, sidebar.kept, sidebar.kept_more) == (False, (), (), 0)
