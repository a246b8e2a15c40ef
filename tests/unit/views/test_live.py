"""LiveHub: a snapshot first, then coalesced frames; append for new entries, replace for known ones."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from markupsafe import Markup

from tests.support.html import top_level, unnumbered
from webclient.acp.models import (
    AgentStatus,
    MessageChunk,
    Suggestion,
    TextPart,
    ToolCallContent,
    ToolCallEvent,
)
from webclient.domain.items import Item
from webclient.domain.state import Aspect, SessionState
from webclient.views import render
from webclient.views.live import LiveHub
from webclient.views.subscriber import MAX_QUEUED_FRAMES, Subscriber
from webclient.views.weight import OFF_LOOP_CHARS


def drain(sub: Subscriber) -> list[str | None]:
    frames: list[str | None] = []
    while not sub.frames.empty():
        frames.append(sub.frames.get_nowait())
    return frames


def agent_says(hub: LiveHub, text: str) -> str:
    changed = hub.state.apply(MessageChunk(role="agent", content=TextPart(text=text)))
    hub.mark(changed)
    (item_id,) = changed
    return item_id


def subscribed(hub: LiveHub) -> Subscriber:
    """A tab on `hub` that has taken its first snapshot."""
    sub = hub.subscribe()
    drain(sub)
    return sub


@pytest.fixture
def hub() -> LiveHub:
    # A long interval: these tests flush by hand and must not depend on the flusher's timing.
    return LiveHub(SessionState(session_id="s-1"), interval=3600)


async def test_a_subscriber_first_gets_a_snapshot(hub: LiveHub) -> None:
    hub.state.set_agent_status(AgentStatus.READY)
    sub = hub.subscribe()
    (snapshot,) = drain(sub)
    assert snapshot is not None
    assert 'id="transcript"' in snapshot
    assert 'data-state="ready"' in snapshot
    assert hub.subscriber_count == 1


async def test_a_tab_whose_page_shows_the_session_as_it_is_gets_an_empty_snapshot(hub: LiveHub) -> None:
    hub.mark(hub.state.set_agent_status(AgentStatus.READY))
    agent_says(hub, "an answer the page already shows")
    shown = hub.revision
    sub = hub.subscribe(shown)
    assert drain(sub) == ["<!--seq 1 snapshot-->"]
    # Then the changes after it, as for any tab.
    agent_says(hub, " and more")
    hub.flush()
    (frame,) = drain(sub)
    assert "and more" in str(frame)


async def test_a_tab_whose_page_is_older_than_a_change_gets_a_full_snapshot(hub: LiveHub) -> None:
    hub.mark(hub.state.set_agent_status(AgentStatus.READY))
    shown = hub.revision
    agent_says(hub, "said after the page was rendered")
    assert hub.revision != shown
    (snapshot,) = drain(hub.subscribe(shown))
    assert "said after the page was rendered" in str(snapshot)


async def test_a_revision_names_its_own_hub_only(hub: LiveHub) -> None:
    # Another session, or the same one after the server started again: the counts match, the names do not.
    other = LiveHub(SessionState(session_id="s-1"), interval=3600)
    assert other.revision != hub.revision
    (snapshot,) = drain(hub.subscribe(other.revision))
    assert 'id="transcript"' in str(snapshot)


async def test_many_marks_between_flushes_produce_one_frame(hub: LiveHub) -> None:
    sub = subscribed(hub)
    for piece in ("one ", "two ", "three ", "four"):
        agent_says(hub, piece)
    hub.mark(hub.state.set_agent_status(AgentStatus.READY))
    hub.flush()
    frames = drain(sub)
    assert len(frames) == 1
    assert "one two three four" in str(frames[0])
    assert 'data-state="ready"' in str(frames[0])
    assert hub.frames_sent == 1


async def test_a_flush_with_nothing_dirty_sends_nothing(hub: LiveHub) -> None:
    sub = subscribed(hub)
    hub.flush()
    hub.mark([])
    hub.flush()
    assert drain(sub) == []
    assert hub.frames_sent == 0


async def test_a_new_item_is_appended_for_a_subscriber_that_did_not_know_it(hub: LiveHub) -> None:
    sub = subscribed(hub)
    item_id = agent_says(hub, "hello")
    hub.flush()
    (frame,) = drain(sub)
    roots = top_level(str(frame))
    assert [r.attrs for r in roots] == [{"hx-swap-oob": "beforeend:#transcript"}]
    assert f'id="{item_id}"' in str(frame)


def tool_call(hub: LiveHub, status: str) -> str:
    update = status != "in_progress"
    changed = hub.state.apply(ToolCallEvent(tool_call_id="t1", is_update=update, title="Read", status=status))
    hub.mark(changed)
    (item_id,) = changed
    return item_id


async def test_a_known_item_is_replaced_by_outerhtml(hub: LiveHub) -> None:
    sub = hub.subscribe()
    item_id = tool_call(hub, "in_progress")
    hub.flush()
    drain(sub)
    tool_call(hub, "completed")
    hub.flush()
    (frame,) = drain(sub)
    roots = top_level(str(frame))
    assert [(r.attrs.get("id"), r.attrs.get("hx-swap-oob")) for r in roots] == [(item_id, "outerHTML")]
    assert "completed" in str(frame)


async def test_a_known_answer_has_only_its_open_tail_replaced(hub: LiveHub) -> None:
    sub = hub.subscribe()
    item_id = agent_says(hub, "hel")
    hub.flush()
    drain(sub)
    agent_says(hub, "lo")
    hub.flush()
    (frame,) = drain(sub)
    roots = top_level(str(frame))
    assert [(r.attrs.get("id"), r.attrs.get("hx-swap-oob")) for r in roots] == [
        (f"{item_id}-tail", "outerHTML")
    ]
    assert "hello" in str(frame)


async def test_finished_blocks_of_an_answer_are_sent_once_and_appended(hub: LiveHub) -> None:
    sub = hub.subscribe()
    item_id = agent_says(hub, "First paragraph.\n\nSec")
    hub.flush()
    drain(sub)
    agent_says(hub, "ond paragraph.\n\nThird")
    hub.flush()
    (frame,) = drain(sub)
    roots = top_level(str(frame))
    assert [r.attrs.get("hx-swap-oob") for r in roots] == [f"beforeend:#{item_id}-done", "outerHTML"]
    assert "Second paragraph." in str(frame)
    assert "First" not in str(frame)  # already sent
    agent_says(hub, " and last.")
    hub.flush()
    (frame,) = drain(sub)
    assert [r.attrs.get("id") for r in top_level(str(frame))] == [f"{item_id}-tail"]
    assert "Second" not in str(frame)
    assert "Third and last." in str(frame)


async def test_the_bytes_sent_for_an_answer_grow_linearly_with_its_length(hub: LiveHub) -> None:
    sub = subscribed(hub)
    block = "A paragraph of about sixty characters, in *Markdown*.\n\n"
    sizes = []
    for _ in range(400):
        agent_says(hub, block)
        hub.flush()
        sizes.append(sum(len(str(f)) for f in drain(sub)))
    # Each frame carries one new block and the tail, however long the answer already is.
    assert max(sizes[1:]) < 3 * len(block) + 400
    assert sizes[-1] <= sizes[1] + 10


async def test_a_tab_that_joins_mid_answer_continues_from_its_snapshot_split(hub: LiveHub) -> None:
    early = hub.subscribe()
    item_id = agent_says(hub, "One.\n\nTwo.\n\nThr")
    hub.flush()
    agent_says(hub, "ee.\n\nFo")  # not yet flushed when the late tab subscribes
    late = hub.subscribe()
    drain(early)
    (snapshot,) = drain(late)
    agent_says(hub, "ur.")
    hub.flush()
    (early_frame,) = drain(early)
    (late_frame,) = drain(late)
    assert "Three." in str(early_frame)  # finished since its last frame
    assert "Three." not in str(late_frame)  # its snapshot already had it finished
    assert "Three." in str(snapshot)
    assert "Four." in str(late_frame) and "Four." in str(early_frame)
    assert item_id in str(late_frame)


async def test_one_flush_appends_for_one_tab_and_replaces_for_another(hub: LiveHub) -> None:
    early = hub.subscribe()
    item_id = agent_says(hub, "first")  # dirty, not yet flushed
    late = hub.subscribe()  # its snapshot already has the item
    drain(early)
    drain(late)
    hub.flush()
    (early_frame,) = drain(early)
    assert drain(late) == []  # its snapshot showed all there is
    agent_says(hub, " and more")
    hub.flush()
    drain(early)
    (late_frame,) = drain(late)
    early_roots = top_level(str(early_frame))
    late_roots = top_level(str(late_frame))
    assert [r.attrs.get("hx-swap-oob") for r in early_roots] == ["beforeend:#transcript"]
    assert f'id="{item_id}"' in str(early_frame)
    assert [(r.attrs.get("id"), r.attrs.get("hx-swap-oob")) for r in late_roots] == [
        (f"{item_id}-tail", "outerHTML")
    ]


async def test_a_subscriber_connecting_after_an_item_exists_gets_it_replaced_not_duplicated(
    hub: LiveHub,
) -> None:
    item_id = agent_says(hub, "streaming")  # dirty, not yet flushed
    sub = hub.subscribe()
    (snapshot,) = drain(sub)
    assert str(snapshot).count(f'id="{item_id}"') == 1
    agent_says(hub, " on")
    hub.flush()
    (frame,) = drain(sub)
    roots = top_level(str(frame))
    assert [(r.attrs.get("id"), r.attrs.get("hx-swap-oob")) for r in roots] == [
        (f"{item_id}-tail", "outerHTML")
    ]
    assert "beforeend" not in str(frame)


async def test_items_new_to_a_tab_are_appended_together_in_transcript_order(hub: LiveHub) -> None:
    sub = subscribed(hub)
    first = agent_says(hub, "a")
    hub.mark(hub.state.add_user_message([TextPart(text="b")]))
    third = agent_says(hub, "c")
    hub.flush()
    (frame,) = drain(sub)
    appends = [r for r in top_level(str(frame)) if r.attrs.get("hx-swap-oob") == "beforeend:#transcript"]
    assert len(appends) == 1  # (the first prompt also names the untitled session in the header)
    assert str(frame).index(f'id="{first}"') < str(frame).index(f'id="{third}"')


async def test_region_changes_go_out_as_out_of_band_swaps(hub: LiveHub) -> None:
    sub = subscribed(hub)
    hub.mark(hub.state.set_agent_status(AgentStatus.EXITED))
    hub.flush()
    (frame,) = drain(sub)
    roots = top_level(str(frame))
    assert [r.attrs.get("id") for r in roots] == ["agent-status", "composer-actions", "background", "plan"]
    assert all(r.attrs.get("hx-swap-oob") == "outerHTML" for r in roots)


async def test_a_slow_subscriber_is_dropped_with_an_end_marker(hub: LiveHub) -> None:
    slow = hub.subscribe()  # never reads: the snapshot is already one frame in its queue
    fast = hub.subscribe()
    for n in range(MAX_QUEUED_FRAMES):
        drain(fast)
        hub.mark(hub.state.set_agent_status(AgentStatus.READY if n % 2 else AgentStatus.STARTING))
        hub.flush()
    assert slow.dropped
    assert slow.frames.full()
    frames = drain(slow)
    assert frames[-1] is None
    assert None not in frames[:-1]
    assert hub.subscriber_count == 1
    # The fast tab is untouched and keeps receiving.
    assert not fast.dropped
    hub.mark({Aspect.STATUS})
    hub.flush()
    assert len(drain(fast)) == 2
    assert drain(slow) == []


async def test_unsubscribed_tabs_get_no_more_frames(hub: LiveHub) -> None:
    sub = subscribed(hub)
    hub.unsubscribe(sub)
    agent_says(hub, "x")
    hub.flush()
    assert drain(sub) == []
    assert hub.subscriber_count == 0


async def test_the_flusher_task_coalesces_and_stop_ends_every_stream() -> None:
    hub = LiveHub(SessionState(), interval=0)
    sub = subscribed(hub)
    hub.start()
    try:
        for piece in ("a", "b", "c"):
            agent_says(hub, piece)  # no await in between: the flusher cannot run until we yield
        frame = await asyncio.wait_for(sub.frames.get(), 5)
        assert "abc" in str(frame)
    finally:
        await hub.stop()
    assert drain(sub) == [None]
    assert hub.subscriber_count == 0


async def test_stop_without_start_still_ends_streams(hub: LiveHub) -> None:
    sub = hub.subscribe()
    await hub.stop()
    assert drain(sub)[-1] is None


async def test_stop_ends_the_stream_of_a_tab_whose_queue_is_full(hub: LiveHub) -> None:
    sub = hub.subscribe()  # never reads
    for _ in range(MAX_QUEUED_FRAMES - 1):
        hub.broadcast("<p>a frame</p>")
    assert sub.frames.full() and not sub.dropped
    await hub.stop()
    assert drain(sub)[-1] is None  # its socket closes, as every other tab's does


async def settle() -> None:
    """Give the flusher task many loop turns (and a little time) to do whatever it is going to do."""
    for _ in range(20):
        await asyncio.sleep(0.005)


async def test_after_a_quiet_spell_a_change_is_sent_at_once_whatever_the_frame_budget() -> None:
    hub = LiveHub(SessionState(), interval=3600)  # a budget no test would wait out
    sub = subscribed(hub)
    hub.start()
    try:
        agent_says(hub, "first")
        frame = await asyncio.wait_for(sub.frames.get(), 5)
        assert "first" in str(frame)
    finally:
        await hub.stop()


async def test_while_changes_keep_coming_the_next_frame_waits_out_the_frame_budget() -> None:
    hub = LiveHub(SessionState(), interval=3600)
    sub = subscribed(hub)
    hub.start()
    try:
        agent_says(hub, "first")
        await asyncio.wait_for(sub.frames.get(), 5)
        agent_says(hub, " second")
        await settle()
        assert drain(sub) == []  # coalescing: held until the budget since the last frame is over
    finally:
        await hub.stop()


async def test_a_tab_that_has_not_taken_its_last_frame_holds_the_next_until_it_does() -> None:
    hub = LiveHub(SessionState(), interval=0)
    sub = hub.subscribe()  # its snapshot waits in the queue: the tab is behind
    hub.start()
    try:
        agent_says(hub, "one")
        await settle()
        assert sub.frames.qsize() == 1  # only the snapshot: the change waits for the tab
        agent_says(hub, " two")
        sub.frames.get_nowait()  # the tab catches up
        frame = await asyncio.wait_for(sub.frames.get(), 5)
        assert "one two" in str(frame)  # both changes in one frame
    finally:
        await hub.stop()


async def test_a_changed_item_is_rendered_once_per_frame_for_every_tab_that_knows_it(
    hub: LiveHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real_item, real_tail = render.item, render.message_tail

    def counting_item(state: SessionState, entry: Item, *, oob: bool = False) -> str:
        calls.append(f"item oob={oob}")
        return real_item(state, entry, oob=oob)

    def counting_tail(entry_id: str, tail: Markup) -> str:
        calls.append("tail")
        return real_tail(entry_id, tail)

    monkeypatch.setattr(render, "item", counting_item)
    monkeypatch.setattr(render, "message_tail", counting_tail)
    first = hub.subscribe()
    tool_call(hub, "in_progress")
    agent_says(hub, "hello")
    hub.flush()  # both new to `first`: appended
    second = hub.subscribe()  # `second` got them in its snapshot
    agent_says(hub, " again")
    tool_call(hub, "completed")
    calls.clear()
    hub.flush()
    assert sorted(calls) == ["item oob=True", "tail"]  # one render of each, shared by both tabs
    last_first, last_second = drain(first)[-1], drain(second)[-1]
    assert last_first is not None and last_second is not None
    assert unnumbered(last_first) == unnumbered(last_second)  # but for the numbers, which are per tab


async def test_a_frame_that_fails_to_render_sends_its_tabs_to_a_fresh_snapshot_and_later_frames_go_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hub = LiveHub(SessionState(session_id="s-1"), interval=0)
    hub.state.set_agent_status(AgentStatus.READY)
    stale = subscribed(hub)
    real_region = render.region
    failures = ["once"]

    def failing_once(state: SessionState, key: str) -> str:
        if failures:
            failures.pop()
            raise RuntimeError("a partial failed")
        return real_region(state, key)

    monkeypatch.setattr(render, "region", failing_once)
    hub.start()
    try:
        hub.mark(hub.state.begin_turn([TextPart(text="hi")]))
        # Its changes are lost with the frame: the tab must not stay on the state before them.
        assert await asyncio.wait_for(stale.frames.get(), 5) is None
        assert hub.subscriber_count == 0
        fresh = hub.subscribe()  # the tab reconnected
        (snapshot,) = drain(fresh)
        assert 'data-state="working"' in str(snapshot)
        hub.mark(hub.state.end_turn())
        frame = await asyncio.wait_for(fresh.frames.get(), 5)  # the flusher still runs
        assert 'data-state="ready"' in str(frame)
    finally:
        await hub.stop()


def held_on_worker(monkeypatch: pytest.MonkeyPatch, name: str) -> tuple[threading.Event, threading.Event]:
    """`render.<name>`, the first time a worker thread calls it, renders and then waits: the first event
    says it got there, the second lets it go on (5 s at most)."""
    reached, release = threading.Event(), threading.Event()
    real = getattr(render, name)

    def held(*args: Any, **kwargs: Any) -> str:
        html: str = real(*args, **kwargs)
        if threading.current_thread() is not threading.main_thread() and not reached.is_set():
            reached.set()
            release.wait(5)
        return html

    monkeypatch.setattr(render, name, held)
    return reached, release


async def test_a_change_made_while_a_heavy_frame_renders_off_the_loop_goes_out_in_the_next_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hub = LiveHub(SessionState(session_id="s-1"), interval=0)
    sub = subscribed(hub)
    rendering, changed = held_on_worker(monkeypatch, "item")  # the heavy frame's render, held
    hub.start()
    try:
        agent_says(hub, "x" * (OFF_LOOP_CHARS + 1))
        assert await asyncio.to_thread(rendering.wait, 5)
        hub.mark(hub.state.set_agent_status(AgentStatus.READY))  # the frame took its changes already
        changed.set()
        heavy_frame = await asyncio.wait_for(sub.frames.get(), 5)
        assert 'data-state="ready"' not in str(heavy_frame)
        # The flusher was woken again while it rendered: nothing waits for a later change.
        assert 'data-state="ready"' in str(await asyncio.wait_for(sub.frames.get(), 5))
    finally:
        await hub.stop()


def content_added(hub: LiveHub, *texts: str, new: bool = False) -> None:
    """The agent adds entries to the content of tool call `t-1` (ACP v2 `tool_call_content_chunk`)."""
    entries = tuple(ToolCallContent(kind="content", content=TextPart(text=text)) for text in texts)
    hub.mark(hub.state.apply(ToolCallEvent(tool_call_id="t-1", is_update=not new, appended=entries)))


async def test_entries_a_card_gains_while_its_frame_renders_off_the_loop_all_reach_the_tab(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A card past OFF_LOOP_CHARS renders on a worker thread while the loop goes on adding entries to
    # it. Read live, an entry added between the render and the count of what the tab shows never reached
    # the page (3,000 of 20,000 in the benchmark's ACP v2 content at 2,000 a second).
    hub = LiveHub(SessionState(session_id="s-1"), interval=0)
    sub = subscribed(hub)
    hub.mark(hub.state.apply(ToolCallEvent(tool_call_id="t-1", is_update=False, title="Read")))
    content_added(hub, "first " + "x" * OFF_LOOP_CHARS)
    hub.flush()  # the tab has the card, and its first entry
    drain(sub)
    # Rendered on the worker thread: the loop adds an entry before it goes on.
    rendered, added = held_on_worker(monkeypatch, "tool_content_added")
    hub.start()
    try:
        content_added(hub, "second")
        assert await asyncio.to_thread(rendered.wait, 5)
        content_added(hub, "third")
        added.set()
        frames: list[str] = []
        while "third" not in "".join(frames):  # without it for 5 s: lost
            frames.append(str(await asyncio.wait_for(sub.frames.get(), 5)))
        sent = "".join(frames)
        assert sent.count("second") == 1 and sent.count("third") == 1
    finally:
        await hub.stop()


@pytest.mark.parametrize(("count", "off_loop"), [(50, True), (3, False)])
async def test_a_long_suggestion_list_renders_off_the_loop_and_a_short_one_on_it(
    monkeypatch: pytest.MonkeyPatch, count: int, off_loop: bool
) -> None:
    # 50 suggestions of 600 characters took 20 to 40 ms to render: every other tab waited that long.
    hub = LiveHub(SessionState(session_id="s-1"), interval=0)
    sub = subscribed(hub)
    threads: list[bool] = []
    real_region = render.region

    def region_seen(state: SessionState, key: Aspect) -> str:
        if key is Aspect.SUGGESTIONS:
            threads.append(threading.current_thread() is threading.main_thread())
        return real_region(state, key)

    monkeypatch.setattr(render, "region", region_seen)
    hub.start()
    try:
        offered = [Suggestion(parts=(TextPart(text=f"{n:05} " + "s" * 600),), wire=()) for n in range(count)]
        hub.mark(hub.state.set_suggestions(tuple(offered)))
        frame = str(await asyncio.wait_for(sub.frames.get(), 5))
        assert frame.count("00001 sss") >= 1
        assert threads == [not off_loop]
    finally:
        await hub.stop()


async def test_a_message_on_the_wire_wakes_the_flusher_only_while_a_tab_has_its_inspector_open(
    hub: LiveHub,
) -> None:
    sub = subscribed(hub)
    hub.mark({Aspect.PROTOCOL_LOG})
    assert not hub._dirty  # nobody reads the log: no frame to make

    hub.watch_inspector(sub, True)
    drain(sub)
    hub.mark({Aspect.PROTOCOL_LOG})
    assert hub._dirty == {Aspect.PROTOCOL_LOG}
