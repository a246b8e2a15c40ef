"""A tool card that grows: a tab is sent what a command added to its output, appended to the card's
output, and the entries added to its content, appended to the card's content; the card whole when anything
else changes, when much was added, and a moment after."""

from __future__ import annotations

import asyncio
import html
import re

import pytest

from tests.support.html import top_level, unnumbered
from webclient.acp.models import TerminalStream, TextPart, ToolCallContent, ToolCallEvent
from webclient.domain.items import TerminalView
from webclient.domain.state import SessionState
from webclient.views import card_deltas
from webclient.views.card_stream import output_id
from webclient.views.live import LiveHub
from webclient.views.subscriber import Subscriber
from webclient.views.terminal import SHOWN_CHARS
from webclient.views.weight import text_size

TOOL = "run-1"


def drain(sub: Subscriber) -> list[str]:
    frames: list[str] = []
    while not sub.frames.empty():
        frame = sub.frames.get_nowait()
        assert frame is not None
        frames.append(unnumbered(frame))
    return frames


def started(hub: LiveHub) -> str:
    """A tool call whose card embeds the terminal the agent streams its command's output into."""
    terminal = ToolCallContent(kind="terminal", terminal_id=TOOL)
    event = ToolCallEvent(
        tool_call_id=TOOL, is_update=False, title="Run the tests", status="in_progress", content=(terminal,)
    )
    (item_id,) = hub.state.apply(event)
    hub.mark([item_id])
    return item_id


def wrote(hub: LiveHub, data: str, status: str | None = None) -> None:
    stream = TerminalStream(terminal_id=TOOL, data=data)
    event = ToolCallEvent(tool_call_id=TOOL, is_update=True, status=status, terminal_stream=stream)
    hub.mark(hub.state.apply(event))


def shown_text(frames: list[str], item_id: str) -> str:
    """The card's output as a tab shows it after these frames: the last whole card's, plus what was
    appended to it since."""
    pre = re.escape(output_id(item_id, 0))
    pieces = re.compile(
        rf'<div hx-swap-oob="beforeend:#{pre}">(?P<added>.*?)</div>'
        rf'|<pre id="{pre}"[^>]*>(?P<whole>.*?)</pre>',
        re.DOTALL,
    )
    text = ""
    for frame in frames:
        for found in pieces.finditer(frame):
            added, whole = found.group("added"), found.group("whole")
            text = text + html.unescape(added) if added is not None else html.unescape(whole)
    return text


@pytest.fixture
def hub() -> LiveHub:
    return LiveHub(SessionState(session_id="s-1"), interval=3600)


async def test_lines_a_command_adds_are_appended_to_the_card_output_escaped(hub: LiveHub) -> None:
    sub = hub.subscribe()
    item_id = started(hub)
    wrote(hub, "collecting 3 tests\n")
    hub.flush()
    frames = drain(sub)
    wrote(hub, "test_a passed\n")
    wrote(hub, "<script>alert(1)</script>\n")
    hub.flush()
    (frame,) = drain(sub)
    (root,) = top_level(frame)
    assert root.attrs.get("hx-swap-oob") == f"beforeend:#{output_id(item_id, 0)}"
    assert "<script>" not in frame and "&lt;script&gt;" in frame
    expected = "collecting 3 tests\ntest_a passed\n<script>alert(1)</script>\n"
    assert shown_text([*frames, frame], item_id) == expected
    # A fresh render of the card shows the same output.
    fresh = hub.subscribe()
    assert shown_text(drain(fresh), item_id) == expected


async def test_the_card_is_sent_whole_when_anything_but_its_output_changes(hub: LiveHub) -> None:
    sub = hub.subscribe()
    item_id = started(hub)
    wrote(hub, "one\n")
    hub.flush()
    drain(sub)
    hub.mark(hub.state.apply(ToolCallEvent(tool_call_id=TOOL, is_update=True, title="Run all the tests")))
    hub.flush()
    (frame,) = drain(sub)
    assert [(r.attrs.get("id"), r.attrs.get("hx-swap-oob")) for r in top_level(frame)] == [
        (item_id, "outerHTML")
    ]
    assert "Run all the tests" in frame


async def test_the_last_output_goes_ahead_of_the_card_rendered_whole_a_frame_later(hub: LiveHub) -> None:
    sub = hub.subscribe()
    item_id = started(hub)
    wrote(hub, "one\n")
    hub.flush()
    frames = drain(sub)
    wrote(hub, "two\n", status="completed")  # the command's last line comes with its end
    hub.flush()
    (ahead,) = drain(sub)
    (root,) = top_level(ahead)
    assert root.attrs.get("hx-swap-oob") == f"beforeend:#{output_id(item_id, 0)}" and "two" in ahead
    hub.flush()  # the next frame: the card whole, completed
    (whole,) = drain(sub)
    assert [(r.attrs.get("id"), r.attrs.get("hx-swap-oob")) for r in top_level(whole)] == [
        (item_id, "outerHTML")
    ]
    assert 'data-status="completed"' in whole
    assert shown_text([*frames, ahead], item_id) == shown_text([whole], item_id) == "one\ntwo\n"
    hub.flush()
    assert drain(sub) == []  # and nothing more


async def test_a_tool_calls_last_entry_goes_ahead_of_the_card_rendered_whole(hub: LiveHub) -> None:
    sub = hub.subscribe()
    drain(sub)
    content_chunk(hub, "read-1", "first")
    hub.flush()
    drain(sub)
    entry = ToolCallContent(kind="content", content=TextPart(text="last entry"))
    event = ToolCallEvent(tool_call_id="read-1", is_update=True, status="completed", appended=(entry,))
    (item_id,) = changed = hub.state.apply(event)
    hub.mark(changed)
    hub.flush()
    (ahead,) = drain(sub)
    (root,) = top_level(ahead)
    assert root.attrs.get("hx-swap-oob") == f"beforeend:#{item_id}-content" and "last entry" in ahead
    hub.flush()
    (whole,) = drain(sub)
    assert [r.attrs.get("id") for r in top_level(whole)] == [item_id] and "last entry" in whole


@pytest.mark.parametrize("data", ["\x1b[32mok\x1b[0m\n", "50%\r100%\n"])
async def test_output_with_control_sequences_or_carriage_returns_sends_the_card_whole(
    hub: LiveHub, data: str
) -> None:
    sub = hub.subscribe()
    item_id = started(hub)
    wrote(hub, "start\n")
    hub.flush()
    drain(sub)
    wrote(hub, data)
    hub.flush()
    (frame,) = drain(sub)
    assert [r.attrs.get("id") for r in top_level(frame)] == [item_id]
    assert "\x1b" not in frame and "50%" not in frame


async def test_once_a_tab_was_sent_as_much_as_a_card_shows_the_card_is_sent_whole(hub: LiveHub) -> None:
    sub = hub.subscribe()
    item_id = started(hub)
    wrote(hub, "start\n")
    hub.flush()
    drain(sub)
    line = "x" * 99 + "\n"
    whole = 0
    for _ in range(2 * SHOWN_CHARS // len(line)):
        wrote(hub, line)
        hub.flush()
        (frame,) = drain(sub)
        whole += any(r.attrs.get("id") == item_id for r in top_level(frame))
    assert whole == 1  # after about SHOWN_CHARS appended, once; appended again after that


async def test_a_moment_after_output_was_appended_the_card_is_sent_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(card_deltas, "SETTLE_AFTER", 0.0)
    hub = LiveHub(SessionState(session_id="s-1"), interval=0)
    sub = hub.subscribe()
    drain(sub)
    hub.start()
    try:
        item_id = started(hub)
        wrote(hub, "one\n")
        whole = await asyncio.wait_for(sub.frames.get(), 5)
        assert item_id in str(whole)
        wrote(hub, "two\n")
        appended = await asyncio.wait_for(sub.frames.get(), 5)
        assert f"beforeend:#{output_id(item_id, 0)}" in str(appended)
        settled = await asyncio.wait_for(sub.frames.get(), 5)
        assert [r.attrs.get("id") for r in top_level(str(settled))] == [item_id]
        assert shown_text([str(whole), str(appended), str(settled)], item_id) == "one\ntwo\n"
    finally:
        await hub.stop()


def content_chunk(hub: LiveHub, tool: str, line: str) -> None:
    """ACP v2's `tool_call_content_chunk`: one entry added to a tool call's content."""
    entry = ToolCallContent(kind="content", content=TextPart(text=line))
    hub.mark(hub.state.apply(ToolCallEvent(tool_call_id=tool, is_update=True, appended=(entry,))))


def content_html(card: str, item_id: str) -> str:
    """What the card's content holds, in the markup of a whole card."""
    start = card.index(f'id="{item_id}-content">') + len(f'id="{item_id}-content">')
    return card[start : card.index("\n  </div>", start)]


async def test_entries_added_to_a_tool_calls_content_are_appended_as_the_card_renders_them(
    hub: LiveHub,
) -> None:
    sub = hub.subscribe()
    drain(sub)
    content_chunk(hub, "read-1", "line *1*")
    hub.flush()
    (whole,) = drain(sub)
    item_id = hub.state.transcript.items[-1].id
    shown = content_html(whole, item_id)
    for line in ("line <b>2</b>", "line 3"):
        content_chunk(hub, "read-1", line)
        hub.flush()
        (frame,) = drain(sub)
        (root,) = top_level(frame)
        assert root.attrs.get("hx-swap-oob") == f"beforeend:#{item_id}-content"
        shown += frame[frame.index(">") + 1 : frame.rindex("</div>")]
    assert "<b>2</b>" not in shown and "&lt;b&gt;2&lt;/b&gt;" in shown
    fresh = hub.subscribe()  # a new tab's snapshot: the card rendered whole shows the same content
    (snapshot,) = drain(fresh)
    card = snapshot[snapshot.index(f'<div id="{item_id}"') :]
    assert content_html(card, item_id) == shown


async def test_a_replaced_content_sends_the_card_whole_and_an_ended_card_is_not_kept_per_tab(
    hub: LiveHub,
) -> None:
    sub = hub.subscribe()
    drain(sub)
    content_chunk(hub, "read-1", "one")
    hub.flush()
    drain(sub)
    entry = ToolCallContent(kind="content", content=TextPart(text="replaced"))
    changed = hub.state.apply(ToolCallEvent(tool_call_id="read-1", is_update=True, content=(entry,)))
    hub.mark(changed)
    hub.flush()
    (frame,) = drain(sub)
    (item_id,) = changed
    assert [r.attrs.get("id") for r in top_level(frame)] == [item_id]
    assert item_id in sub.view.cards
    hub.mark(hub.state.apply(ToolCallEvent(tool_call_id="read-1", is_update=True, status="completed")))
    hub.flush()
    drain(sub)
    assert item_id not in sub.view.cards  # a long session's ended cards cost a tab nothing


async def test_a_card_weighed_as_its_content_grows_weighs_what_it_carries(hub: LiveHub) -> None:
    """The weight that sends a heavy frame off the loop is kept up as entries are added, not recounted:
    it stays what the whole content carries, through additions and a replacement."""
    lines = ["x" * 100, "y" * 2_000, "z" * 30]
    for line in lines:
        content_chunk(hub, "read-1", line)
        card = hub.state.transcript.items[-1]
        assert text_size(card, hub.state.terminals) == sum(len(x) for x in lines[: lines.index(line) + 1])
    entry = ToolCallContent(kind="content", content=TextPart(text="short"))
    hub.state.apply(ToolCallEvent(tool_call_id="read-1", is_update=True, content=(entry,)))
    assert text_size(card, hub.state.terminals) == len("short")
    content_chunk(hub, "read-1", "more")
    assert text_size(card, hub.state.terminals) == len("shortmore")


async def test_a_line_of_a_commands_output_reads_none_of_the_output_before_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The output made anew for each line cost each line all of it (1 ms a line at 1 MB); read whole, it
    # would cost as much again. Only a whole render of the card reads it whole.
    reads: list[int] = []
    whole = TerminalView.__dict__["output"]
    assert isinstance(whole, property) and whole.fget is not None
    read = whole.fget

    def counted(view: TerminalView) -> str:
        reads.append(view.length)
        return str(read(view))

    monkeypatch.setattr(TerminalView, "output", property(counted))
    hub = LiveHub(SessionState(session_id="s-1"), interval=3600)
    sub = hub.subscribe()
    item_id = started(hub)
    for n in range(500):
        wrote(hub, f"test_{n:05} passed\n")
    hub.flush()  # the card whole, with 500 lines
    drain(sub)
    reads.clear()
    for n in range(500, 520):
        wrote(hub, f"test_{n:05} passed\n")
        hub.flush()
        (frame,) = drain(sub)
        assert f"beforeend:#{output_id(item_id, 0)}" in str(frame) and f"test_{n:05}" in str(frame)
    assert reads == []
