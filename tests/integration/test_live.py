"""Fan-out to tabs through a live server: coalesced frames, tabs in sync, snapshots for late tabs."""

from __future__ import annotations

from pathlib import Path

from tests.integration.conftest import Serve
from tests.integration.support import Page, status_is, turn_finished
from tests.live import open_tab


async def test_a_flood_of_3000_chunks_reaches_the_tab_as_few_frames_with_the_complete_text(
    serve: Serve,
) -> None:
    server = serve("flood")
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"))
    frames_before = len(tab.frames)

    await tab.send(action="prompt", text="flood me")
    await tab.wait_for(turn_finished("flood me"), timeout=30)

    assert len(tab.frames) - frames_before < 200
    assert Page.parse(tab.html).texts("agent") == [" ".join(str(i) for i in range(3000))]


async def test_two_tabs_on_one_session_show_the_same_conversation(serve: Serve) -> None:
    server = serve("echo_agent")
    first, second = await open_tab(server), await open_tab(server)
    for tab in (first, second):
        await tab.wait_for(status_is("ready"))

    await first.send(action="prompt", text="from the first tab")
    for tab in (first, second):
        await tab.wait_for(turn_finished("from the first tab"))
    await second.send(action="prompt", text="from the second tab")
    for tab in (first, second):
        await tab.wait_for(turn_finished("from the second tab"))

    expected = [
        ("user", "from the first tab"),
        ("agent", "You said: from the first tab"),
        ("user", "from the second tab"),
        ("agent", "You said: from the second tab"),
    ]
    assert Page.parse(first.html).messages == expected
    assert Page.parse(second.html).messages == expected


async def test_a_tab_that_connects_mid_answer_gets_the_transcript_so_far_then_the_rest(
    serve: Serve, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    server = serve("gated_stream", str(gate))
    first = await open_tab(server)
    await first.wait_for(status_is("ready"))
    await first.send(action="prompt", text="tell me in two halves")
    await first.wait_for(lambda html: "first half" in Page.parse(html).agent_text)

    late = await open_tab(server)
    await late.wait_for(lambda html: bool(html))
    snapshot = Page.parse(late.frames[0])
    assert snapshot.messages == [("user", "tell me in two halves"), ("agent", "first half,")]
    assert snapshot.status == "working"

    gate.touch()
    for tab in (first, late):
        await tab.wait_for(turn_finished("tell me in two halves"))
    expected = [("user", "tell me in two halves"), ("agent", "first half, second half.")]
    assert Page.parse(first.html).messages == expected
    assert Page.parse(late.html).messages == expected
