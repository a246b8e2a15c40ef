"""The tests' reading of a tab's page: frames swapped into a real DOM as htmx swaps them."""

from __future__ import annotations

from tests.support.html import Frames, Page, finished

SNAPSHOT = (
    "<!--seq 1 snapshot-->"
    '<section id="transcript" hx-swap-oob="innerHTML">'
    '<article id="m1" data-testid="message" data-role="user"><header class="who">You</header>hi</article>'
    "</section>"
    '<span id="agent-status" data-testid="agent-status" data-state="working" hx-swap-oob="outerHTML">w</span>'
)
ANSWER = (
    '<!--seq 2--><div hx-swap-oob="beforeend:#transcript">'
    '<article id="m2" data-testid="message" data-role="agent"><header class="who">Agent</header>'
    '<div id="m2-done"></div><div id="m2-tail">Hel</div></article></div>'
)
MORE = (
    '<!--seq 3--><div hx-swap-oob="beforeend:#m2-done"><p>Hello.</p></div>'
    '<div id="m2-tail" hx-swap-oob="outerHTML">Wor</div>'
    '<div hx-swap-oob="beforeend:#m2-tail">ld</div>'
    '<span id="agent-status" data-testid="agent-status" data-state="ready" hx-swap-oob="outerHTML">r</span>'
)


def test_each_frame_is_swapped_in_by_id_as_htmx_swaps_it() -> None:
    page = Page.parse(SNAPSHOT + ANSWER + MORE)
    assert page.messages == [("user", "hi"), ("agent", "Hello.World")]
    assert page.status == "ready"
    assert page.values("agent-status", "data-state") == ["ready"]  # replaced, not added


def test_a_snapshot_replaces_what_the_transcript_held() -> None:
    again = SNAPSHOT.replace("seq 1", "seq 4").replace(">hi<", ">hi again<")
    page = Page.parse(SNAPSHOT + ANSWER + MORE + again)
    assert page.messages == [("user", "hi again")]


def test_parsing_more_of_a_tabs_html_leaves_a_page_already_read_as_it_was() -> None:
    first = Page.parse(SNAPSHOT)
    later = Page.parse(SNAPSHOT + ANSWER)
    same = Page.parse(SNAPSHOT + ANSWER)
    last = Page.parse(SNAPSHOT + ANSWER + MORE)
    assert first.messages == [("user", "hi")] and first.status == "working"
    assert later.messages == same.messages == [("user", "hi"), ("agent", "Hel")]
    assert last.texts("agent") == ["Hello.World"]


def test_an_inner_swap_keeps_the_element_and_changes_what_it_holds() -> None:
    page = Page.parse(
        '<section id="t" data-testid="box" data-kept="yes"><p data-testid="notice">old</p></section>'
        '<section id="t" hx-swap-oob="innerHTML"><p data-testid="notice">new</p></section>'
    )
    assert page.values("box", "data-kept") == ["yes"]
    assert page.notices == ["new"]


def test_a_page_built_frame_by_frame_shows_what_the_joined_frames_show() -> None:
    frames = Frames()
    assert frames.page.messages == [] and frames.page.status is None
    frames.add(SNAPSHOT)
    assert not finished(frames.page, "hi")  # the agent still works
    for frame in (ANSWER, MORE):
        frames.add(frame)
    assert frames.page.messages == Page.parse(SNAPSHOT + ANSWER + MORE).messages
    assert finished(frames.page, "hi") and not finished(frames.page, "bye")
    frames.add(SNAPSHOT.replace("seq 1", "seq 4").replace(">hi<", ">hi again<"))
    assert frames.page.messages == [("user", "hi again")]
