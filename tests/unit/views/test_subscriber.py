"""A tab's frame queue: it says when the tab has taken every frame, however the frames were put and taken.

`_FrameQueue` overrides `asyncio.Queue._put` and `_get`, which are private to asyncio: if a Python
release stops calling them from every put and get, these tests fail.
"""

from __future__ import annotations

import asyncio

from webclient.acp.models import MessageChunk, TextPart
from webclient.domain.state import SessionState
from webclient.views.streamed import Shown
from webclient.views.subscriber import Subscriber


async def test_the_queue_is_drained_once_every_frame_is_taken_by_any_get() -> None:
    frames = Subscriber().frames
    assert frames.empty_event.is_set()
    frames.put_nowait("one")
    await frames.put("two")
    assert not frames.empty_event.is_set()
    assert frames.get_nowait() == "one"
    assert not frames.empty_event.is_set()  # one frame is still waiting
    assert await frames.get() == "two"
    assert frames.empty_event.is_set()


async def test_drained_waits_for_the_tab_to_take_its_last_frame() -> None:
    tab = Subscriber()
    tab.push("<p>frame</p>")
    waiting = asyncio.create_task(tab.drained())
    await asyncio.sleep(0)  # the waiter runs up to its wait
    assert not waiting.done()
    await tab.frames.get()
    await asyncio.wait_for(waiting, timeout=5)


def test_a_snapshot_is_numbered_as_one_and_the_tab_then_shows_it_and_nothing_streamed_before() -> None:
    state = SessionState(session_id="s-1")
    (answer,) = state.apply(MessageChunk(role="agent", content=TextPart(text="Hello")))
    tab = Subscriber()
    tab.push("<p>frame</p>")
    tab.view.streamed["gone"] = Shown(done=0, upto=3, raw=True)
    tab.snapshot("<main>snapshot</main>", state)
    assert tab.frames.get_nowait() == "<!--seq 1--><p>frame</p>"
    assert tab.frames.get_nowait() == "<!--seq 2 snapshot--><main>snapshot</main>"
    assert tab.view.known_items == {answer}
    assert tab.view.streamed == {answer: Shown(done=0, upto=len("Hello"))}
