"""A long open block: each chunk appended as escaped raw text, rendered as Markdown when due, and in the end
the markup one rendering of the whole gives."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from markupsafe import Markup

from tests.support.dom import Dom
from tests.support.html import tags, top_level
from tests.support.markdown_corpus import CORPUS, random_chunks
from tests.support.polling import eventually
from webclient.acp.models import MessageChunk, TextPart
from webclient.domain.state import SessionState
from webclient.views import render, streamed
from webclient.views.live import LiveHub
from webclient.views.markdown import render_markdown
from webclient.views.streamed import FORMAT_INTERVAL, LONG_MARKDOWN, SHORT_TAIL, Shown, Stream, StreamFrame
from webclient.views.subscriber import Subscriber
from webclient.views.weight import OFF_LOOP_CHARS

ID = "msg-x"


# An answer's list long enough that its render, once it finished, is done on a worker thread.
LIST_ITEMS = [f"- item {n}\n" for n in range(LONG_MARKDOWN // 8)]


def frame(text: str, stream: Stream, shown: Shown, now: float) -> tuple[str, Shown]:
    return StreamFrame(ID, text, stream, now).for_tab(shown)


@asynccontextmanager
async def running_hub() -> AsyncIterator[tuple[LiveHub, Subscriber]]:
    """A hub with its flusher running, and a tab past its first snapshot; stopped on the way out."""
    hub = LiveHub(SessionState(session_id="s-1"), interval=0.001)
    hub.start()
    try:
        sub = hub.subscribe()
        sub.frames.get_nowait()
        yield hub, sub
    finally:
        await hub.stop()


def agent_writes(hub: LiveHub, text: str) -> None:
    hub.mark(hub.state.apply(MessageChunk(role="agent", content=TextPart(text=text))))


def test_a_short_open_block_is_rendered_as_markdown_on_every_frame() -> None:
    stream, shown = Stream(), Shown(0, 0)
    html, shown = frame("Some *emph", stream, shown, now=0)
    html, shown = frame("Some *emphasis*", stream, shown, now=0.001)
    assert [t.attrs.get("id") for t in top_level(html)] == [f"{ID}-tail"]
    assert "<em>emphasis</em>" in html and not shown.raw


def test_a_long_open_block_gets_each_chunk_as_escaped_raw_text_until_its_render_is_due() -> None:
    stream, shown = Stream(), Shown(0, 0)
    text = "word " * (SHORT_TAIL // 5 + 10)
    html, shown = frame(text, stream, shown, now=10.0)  # the first long render: at once
    assert "md-raw" not in html and not shown.raw
    sizes = []
    for n in range(50):
        text += f"<b>{n}</b> & "
        html, shown = frame(text, stream, shown, now=10.0 + n * FORMAT_INTERVAL / 100)
        sizes.append(len(html))
        (root,) = top_level(html)
        assert root.attrs["hx-swap-oob"] == f"beforeend:#{ID}-tail"
        assert "&lt;b&gt;" in html and [t.name for t in tags(html)] == ["div", "span"]  # text, escaped
        assert shown.raw and shown.upto == len(text)
    assert max(sizes) - min(sizes) <= 2  # a chunk costs its own size, not the tail's
    assert stream.format_due >= 10.0 + FORMAT_INTERVAL
    html, shown = frame(text, stream, shown, now=stream.format_due)  # due: rendered whole again
    assert [t.attrs.get("id") for t in top_level(html)] == [f"{ID}-tail"]
    assert "<b>" not in html and "md-raw" not in html and not shown.raw
    assert frame(text, stream, shown, now=20.0) == ("", shown)  # nothing new: nothing sent


def test_raw_text_inside_a_fenced_code_block_is_marked_as_code() -> None:
    stream, shown = Stream(), Shown(0, 0)
    text = "```\n" + "x = 1\n" * SHORT_TAIL
    _, shown = frame(text, stream, shown, now=1.0)
    html, _ = frame(text + "y = 2\n", stream, shown, now=1.001)
    assert 'class="md-raw md-raw-code"' in html


def test_a_long_block_that_finishes_is_appended_once_and_the_tail_starts_afresh() -> None:
    stream, shown = Stream(), Shown(0, 0)
    text = "- item\n" * SHORT_TAIL
    _, shown = frame(text, stream, shown, now=1.0)
    _, shown = frame(text + "- more\n", stream, shown, now=1.001)
    assert shown.raw
    html, shown = frame(text + "- more\n\nAfter.", stream, shown, now=1.002)
    roots = [t.attrs.get("hx-swap-oob") for t in top_level(html)]
    assert roots == [f"beforeend:#{ID}-done", "outerHTML"]
    assert html.count("<li>") == SHORT_TAIL + 1 and not shown.raw and shown.done > 0


def test_a_replaced_text_is_reported_so_the_tab_gets_the_answer_whole() -> None:
    stream = Stream()
    assert StreamFrame(ID, "first version", stream, 0).replaced is False
    assert StreamFrame(ID, "first version, longer", stream, 0).replaced is False
    assert StreamFrame(ID, "another text", stream, 0).replaced is True


def test_every_corpus_answer_with_a_clock_that_alternates_raw_and_render_ends_as_one_rendering() -> None:
    for name, answer in CORPUS.items():
        state = SessionState(session_id="s")
        chunks = list(random_chunks(answer, seed=7))
        (item_id,) = state.apply(MessageChunk(role="agent", content=TextPart(text=chunks[0])))
        entry = state.item(item_id)
        assert entry is not None
        dom = Dom()
        dom.apply(render.append_items(render.item(state, entry)))
        stream, shown, text, raw_seen = Stream(), Shown(0, len(chunks[0])), chunks[0], False
        stream.advance(text)
        for n, chunk in enumerate(chunks[1:]):
            text += chunk
            html, shown = StreamFrame(item_id, text, stream, now=n * FORMAT_INTERVAL / 3).for_tab(shown)
            raw_seen = raw_seen or shown.raw
            dom.apply(html)
        html, shown = StreamFrame(item_id, text, stream, now=1e9).for_tab(shown)  # the last render
        dom.apply(html)
        state.apply(MessageChunk(role="agent", content=TextPart(text=text[len(chunks[0]) :])))
        whole = Dom()
        whole.apply(render.append_items(render.item(state, entry)))
        assert dom.html(item_id) == whole.html(item_id), name
        assert raw_seen or len(answer) < 3 * SHORT_TAIL, name  # the long answers went through raw text


async def test_a_frame_with_a_huge_item_is_rendered_off_the_event_loop_and_a_light_one_on_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    threads: list[str] = []
    real_tail, real_raw = render.message_tail, render.raw_text

    def recording_tail(entry_id: str, tail: Markup) -> str:
        threads.append(threading.current_thread().name)
        return real_tail(entry_id, tail)

    def recording_raw(text: str, *, code: bool) -> Markup:  # a long tail's chunk is sent as raw text
        threads.append(threading.current_thread().name)
        return real_raw(text, code=code)

    monkeypatch.setattr(render, "message_tail", recording_tail)
    monkeypatch.setattr(render, "raw_text", recording_raw)
    async with running_hub() as (hub, sub):
        for text in ("a light chunk", ", a second one", "x" * (OFF_LOOP_CHARS + 1)):
            agent_writes(hub, text)
            frame = await asyncio.wait_for(sub.frames.get(), 30)
            assert frame is not None and text[-20:] in frame
        assert threads[0] == threading.main_thread().name
        assert threads[-1] != threading.main_thread().name


async def test_a_long_tails_render_runs_on_a_worker_thread_while_its_chunks_keep_going_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release = threading.Event()
    real = render_markdown
    rendered_on: list[str] = []

    def slow_render(text: str) -> Markup:  # a long tail's render that takes until the test says
        if len(text) > SHORT_TAIL:
            rendered_on.append(threading.current_thread().name)
            release.wait(30)
        return real(text)

    monkeypatch.setattr(streamed, "render_markdown", slow_render)
    async with running_hub() as (hub, sub):
        try:
            text = "word " * (SHORT_TAIL // 5 + 10)
            for n in range(6):  # the long paragraph, then chunks while its render is held
                chunk = text if n == 0 else f" chunk{n}"
                agent_writes(hub, chunk)
                frame = await asyncio.wait_for(sub.frames.get(), 30)
                assert frame is not None and chunk[-10:] in frame
                if n > 0:
                    assert "md-raw" in frame  # sent as it came, not held for the render
                if n == 1:  # a tab shows raw text: the tail's render is due at once
                    await eventually(lambda: bool(rendered_on), timeout=30, what="the render to start")
            assert rendered_on and all(name != threading.main_thread().name for name in rendered_on)
            release.set()
            while True:  # the render arrives, with the chunks that came while it ran after it, raw
                frame = await asyncio.wait_for(sub.frames.get(), 30)
                assert frame is not None
                if f'id="{hub.state.items[-1].id}-tail"' in frame:
                    break
            assert "<p>word word" in frame and " chunk5" in frame
        finally:
            release.set()


async def test_a_long_block_that_finishes_is_rendered_off_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    renders: list[tuple[int, str]] = []

    def recording(text: str) -> Markup:
        renders.append((len(text), threading.current_thread().name))
        return render_markdown(text)

    monkeypatch.setattr(streamed, "render_markdown", recording)
    async with running_hub() as (hub, sub):
        frames: list[str] = []
        for chunk in (LIST_ITEMS[0], "".join(LIST_ITEMS[1:]), "\nAfter the list."):
            agent_writes(hub, chunk)
            frame = await asyncio.wait_for(sub.frames.get(), 30)
            assert frame is not None
            frames.append(frame)
        assert "<li>" not in frames[-1]  # what finished the list went out ahead of its render
        rendered = await asyncio.wait_for(sub.frames.get(), 30)
        assert f"<li>item {len(LIST_ITEMS) - 1}</li>" in str(rendered)  # the finished list, rendered
        long = [thread for size, thread in renders if size > LONG_MARKDOWN]
        assert long and threading.main_thread().name not in long


async def test_the_chunk_that_finishes_a_long_block_goes_out_before_the_blocks_render(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A list of 2,000 items that finished renders on a worker thread: its last items went out only with
    # that render (236 ms in a quiet benchmark run, the worst chunk of the list).
    release = threading.Event()
    real_added = render.message_added

    def held_added(entry_id: str, added: Markup) -> str:  # the finished list's render, held
        if threading.current_thread() is not threading.main_thread():
            release.wait(60)
        return real_added(entry_id, added)

    monkeypatch.setattr(render, "message_added", held_added)
    async with running_hub() as (hub, sub):
        try:
            for chunk in (LIST_ITEMS[0], "".join(LIST_ITEMS[1:-1])):
                agent_writes(hub, chunk)
                assert await asyncio.wait_for(sub.frames.get(), 30) is not None
            last = LIST_ITEMS[-1] + "\nAfter the list."
            agent_writes(hub, last)
            ahead = await asyncio.wait_for(sub.frames.get(), 30)  # while the list's render is held
            assert ahead is not None and "md-raw" in ahead
            assert f"- item {len(LIST_ITEMS) - 1}" in ahead and "After the list." in ahead
            assert "<li>" not in ahead
            release.set()
            rendered = await asyncio.wait_for(sub.frames.get(), 30)
            assert rendered is not None and f"<li>item {len(LIST_ITEMS) - 1}</li>" in rendered
            assert "<p>After the list.</p>" in rendered
        finally:
            release.set()
