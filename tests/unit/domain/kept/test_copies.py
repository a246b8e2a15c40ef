"""Which stored copies the sidebar lists, and what a session showing one is: read only, no prompt."""

from __future__ import annotations

from webclient.acp.models import AgentStatus
from webclient.domain.items import MessageItem
from webclient.domain.kept.copies import LISTED, Elsewhere, listed
from webclient.domain.kept.entries import KeptCopy, KeptEntry, KeptSummary, rebuild
from webclient.domain.state import Aspect, SessionState


def summary(
    key: str, session_id: str | None = None, updated: float = 100.0, agent: str = "demo"
) -> KeptSummary:
    return KeptSummary(
        key=key, agent_key=agent, agent_label="Demo", session_id=session_id, title=f"title {key}",
        created=1.0, updated=updated,
    )  # fmt: skip


def keys(summaries: list[KeptSummary], elsewhere: Elsewhere | None = None) -> list[str]:
    return [link.key for link in listed(summaries, elsewhere or Elsewhere())[0]]


def test_a_copy_is_listed_with_its_title_agent_and_time_and_marked_where_it_is_shown() -> None:
    links, more = listed([summary("a", "s-1", 50.0), summary("b")], Elsewhere(), current="b")

    assert [(link.key, link.title, link.agent, link.saved_at, link.current) for link in links] == [
        ("a", "title a", "Demo", 50.0, False),
        ("b", "title b", "Demo", 100.0, True),
    ]
    assert more == 0


def test_a_copy_still_being_written_or_loadable_from_its_agent_is_not_listed() -> None:
    copies = [summary("writing", "s-1"), summary("loadable", "s-3"), summary("lost", "s-4")]
    elsewhere = Elsewhere(writing=frozenset({"writing"}), loadable=frozenset({("demo", "s-3")}))

    assert keys(copies, elsewhere) == ["lost"]


def test_the_same_session_of_another_agent_is_another_conversation() -> None:
    copies = [summary("mine", "s-1"), summary("theirs", "s-1", agent="other")]

    assert keys(copies, Elsewhere(loadable=frozenset({("demo", "s-1")}))) == ["theirs"]


def test_copies_with_the_same_session_id_are_each_listed() -> None:
    # An agent that cannot load sessions may number them the same way again after a restart: the id
    # says nothing of the conversation, so an open session with that id hides no copy, nor does another copy.
    copies = [summary("today", "1", 200.0), summary("yesterday", "1", 100.0), summary("never opened", None)]

    assert keys(copies) == ["today", "yesterday", "never opened"]


def test_the_list_stops_at_its_bound_and_counts_the_rest() -> None:
    copies = [summary(f"k{n}", f"s-{n}", float(1000 - n)) for n in range(LISTED + 5)]

    links, more = listed(copies, Elsewhere())

    assert [link.key for link in links] == [f"k{n}" for n in range(LISTED)]
    assert more == 5


def test_a_session_showing_a_copy_is_read_only_and_takes_no_prompt_even_with_its_agent_ready() -> None:
    state = SessionState(agent_key="demo", agent_label="Demo")
    state.set_agent_status(AgentStatus.READY)
    entries = [
        KeptEntry(kind="message", role="user", text="hello"),
        KeptEntry(kind="message", role="agent", text="hi"),
    ]

    changed = state.show_copy(KeptCopy(key="k", title="hello", saved_at=5.0), rebuild(entries))

    assert changed == {Aspect.DETAILS, Aspect.STATUS}
    assert state.kept == KeptCopy(key="k", title="hello", saved_at=5.0)
    assert state.display_title == "hello"
    assert [(item.role, item.text) for item in state.items if isinstance(item, MessageItem)] == [
        ("user", "hello"),
        ("agent", "hi"),
    ]
    assert state.display_status == "read-only"
    assert not state.can_prompt
