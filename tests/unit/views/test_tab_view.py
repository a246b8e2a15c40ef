"""TabView: what a tab shows is what its snapshot showed, and nothing of what it was streamed before."""

from __future__ import annotations

from webclient.acp.models import ImagePart, MessageChunk, TextPart, ToolCallEvent
from webclient.domain.state import SessionState
from webclient.views.card_stream import CardShown
from webclient.views.streamed import Shown
from webclient.views.tab_view import TabView


def test_a_snapshot_shows_every_entry_and_each_streamed_answer_as_it_stands() -> None:
    state = SessionState(session_id="s-1")
    (user,) = state.apply(MessageChunk(role="user", content=TextPart(text="hi")))
    (answer,) = state.apply(MessageChunk(role="agent", content=TextPart(text="First.\n\nSecond")))
    (card,) = state.apply(ToolCallEvent(tool_call_id="t-1", is_update=False, title="Read", status="pending"))
    tab = TabView()
    tab.streamed["gone"] = Shown(done=1, upto=2, raw=True)
    tab.cards["gone"] = CardShown(shell=(), entries=1, terminals=(), outputs=(), raw=3)
    tab.shows(state)
    assert tab.known_items == {user, answer, card}
    # The finished paragraph ends where the snapshot's render split it; nothing raw, no card appended to.
    assert tab.streamed == {answer: Shown(done=len("First.\n\n"), upto=len("First.\n\nSecond"))}
    assert tab.cards == {}


def test_an_answer_not_all_text_or_with_a_reference_definition_is_not_streamed() -> None:
    cases: tuple[list[TextPart | ImagePart], ...] = (
        [TextPart(text="See [it].\n\n[it]: https://example.org\n")],  # shown whole: the link resolves
        [TextPart(text="Look:"), ImagePart(data="aGk=", mime_type="image/png")],
    )
    for parts in cases:
        state = SessionState(session_id="s-1")
        for part in parts:
            state.apply(MessageChunk(role="agent", content=part))
        tab = TabView()
        tab.shows(state)
        assert tab.known_items == {entry.id for entry in state.items} != set()
        assert tab.streamed == {}
