"""Fan-out to tabs through the app: coalesced frames, tabs in sync, snapshots for late tabs."""

from __future__ import annotations

from pathlib import Path

from tests.support.html import Page, turn_finished
from tests.support.inprocess import StartApp, wait_until_ready


def test_a_flood_of_3000_chunks_reaches_the_tab_as_few_frames_with_the_complete_text(
    start_app: StartApp,
) -> None:
    app = start_app("flood")
    tab = app.open_tab()
    wait_until_ready(tab)
    frames_before = len(tab.frames)

    tab.send(action="prompt", text="flood me")
    tab.wait_for(turn_finished("flood me"), timeout=30)
    # A long paragraph shows what arrived as raw text first; its last Markdown render follows the turn.
    expected = [" ".join(str(i) for i in range(3000))]
    tab.wait_for(lambda html: Page.parse(html).texts("agent") == expected, timeout=30)

    assert len(tab.frames) - frames_before < 200


def test_two_tabs_on_one_session_show_the_same_conversation(start_app: StartApp) -> None:
    app = start_app("echo_agent")
    first, second = app.open_tab(), app.open_tab()
    for tab in (first, second):
        wait_until_ready(tab)

    first.send(action="prompt", text="from the first tab")
    for tab in (first, second):
        tab.wait_for(turn_finished("from the first tab"))
    second.send(action="prompt", text="from the second tab")
    for tab in (first, second):
        tab.wait_for(turn_finished("from the second tab"))

    expected = [
        ("user", "from the first tab"),
        ("agent", "You said: from the first tab"),
        ("user", "from the second tab"),
        ("agent", "You said: from the second tab"),
    ]
    assert Page.parse(first.html).messages == expected
    assert Page.parse(second.html).messages == expected


def test_a_tab_that_connects_mid_answer_gets_the_transcript_so_far_then_the_rest(
    start_app: StartApp, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    app = start_app("gated_stream", str(gate))
    first = app.open_tab()
    wait_until_ready(first)
    first.send(action="prompt", text="tell me in two halves")
    first.wait_for(lambda html: "first half" in Page.parse(html).agent_text)

    late = app.open_tab()
    snapshot = Page.parse(late.first_frame())
    assert snapshot.messages == [("user", "tell me in two halves"), ("agent", "first half,")]
    assert snapshot.status == "working"

    gate.touch()
    for tab in (first, late):
        tab.wait_for(turn_finished("tell me in two halves"))
    expected = [("user", "tell me in two halves"), ("agent", "first half, second half.")]
    assert Page.parse(first.html).messages == expected
    assert Page.parse(late.html).messages == expected
