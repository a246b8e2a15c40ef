"""Streaming changes nothing in the end: an answer cut into random chunks ends, in every tab, as one
rendering of the whole shows it; what a tab sees meanwhile is escaped text or sanitised Markdown."""

from __future__ import annotations

import asyncio
import random
from typing import Literal

import pytest

from tests.support.dom import Dom, Node, parse
from tests.support.markdown_corpus import CORPUS, random_chunks
from tests.support.polling import eventually
from webclient.acp.models import AgentStatus, MessageChunk, TextPart
from webclient.domain.state import SessionState
from webclient.views import live, render, streamed
from webclient.views.live import LiveHub
from webclient.views.subscriber import Subscriber


class _Tab:
    def __init__(self, hub: LiveHub) -> None:
        self.sub: Subscriber = hub.subscribe()
        self.dom = Dom()
        self.frames: list[str] = []

    def take(self) -> None:
        while not self.sub.frames.empty():
            frame = self.sub.frames.get_nowait()
            assert frame is not None, "the tab was dropped"
            self.frames.append(frame)
            self.dom.apply(frame)


def _full_page(state: SessionState, item_id: str) -> str:
    page = render.page(state, ws_path="/ws/x")
    start = page.index(f'<article id="{item_id}"') if f'<article id="{item_id}"' in page else None
    if start is None:
        start = page.index(f'<details id="{item_id}"')
    # The page's own markup around the entry is not ours to parse here: the entry alone, as rendered.
    tag = "article" if page.startswith("<article", start) else "details"
    end = page.index(f"</{tag}>", start) + len(f"</{tag}>")
    return parse(page[start:end]).children[0].html()


def _raw_spans_hold_only_text(frames: list[str]) -> bool:
    spans = [n for f in frames for n in parse(f).elements() if "md-raw" in str(n.attrs.get("class", ""))]
    return all(not child.tag for span in spans for child in span.children)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("role", ["agent", "thought"])
@pytest.mark.parametrize("name", CORPUS)
@pytest.mark.parametrize("finished_off_loop", [False, True], ids=["finished-on-loop", "finished-off-loop"])
async def test_an_answer_streamed_in_random_chunks_ends_as_one_rendering_of_it(
    name: str,
    role: Literal["agent", "thought"],
    seed: int,
    finished_off_loop: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Short limits, so most blocks of the corpus go through the raw-text stage and its later render.
    monkeypatch.setattr(streamed, "SHORT_TAIL", 30)
    monkeypatch.setattr(streamed, "FORMAT_INTERVAL", 0.02)
    if finished_off_loop:  # finished blocks render on a worker thread, what finished them sent ahead
        monkeypatch.setattr(live, "LONG_MARKDOWN", 30)
    hub = LiveHub(SessionState(session_id="s-1"), interval=0.001)
    hub.state.set_agent_status(AgentStatus.READY)
    hub.start()
    rng = random.Random(seed)
    try:
        first = _Tab(hub)
        joined: _Tab | None = None
        item_id = ""
        chunks = list(random_chunks(CORPUS[name], seed))
        for index, chunk in enumerate(chunks):
            (item_id,) = changed = hub.state.apply(MessageChunk(role=role, content=TextPart(text=chunk)))
            hub.mark(changed)
            if rng.random() < 0.3:
                await asyncio.sleep(rng.choice((0.001, 0.002, 0.005)))  # let the flusher run, or not
                first.take()
            if joined is None and index >= len(chunks) // 2:
                joined = _Tab(hub)  # a tab that opens mid-answer: a snapshot, then frames
            if joined is not None:
                joined.take()
        assert joined is not None
        whole = _full_page(hub.state, item_id)
        late = _Tab(hub)  # a tab that opens when the answer is complete: the snapshot alone

        def settled() -> bool:
            for tab in (first, joined, late):
                tab.take()
            return all(tab.dom.html(item_id) == whole for tab in (first, joined, late))

        await eventually(
            settled,
            timeout=20,
            what="every tab to show the answer as one rendering does",
            detail=lambda: "\n".join(f[:200] for f in first.frames[:4]),
        )
        assert "md-raw" not in whole
        assert _raw_spans_hold_only_text(first.frames + joined.frames)
    finally:
        await hub.stop()


def test_the_dom_model_applies_each_kind_of_swap_and_ignores_a_missing_target() -> None:
    dom = Dom('<div id="transcript"><p id="a">old</p></div>')
    dom.apply('<p id="a" hx-swap-oob="outerHTML">new &amp; <b>bold</b></p>')
    dom.apply('<div hx-swap-oob="beforeend:#transcript"><i>more</i> text</div>')
    dom.apply('<div hx-swap-oob="beforeend:#nowhere"><i>lost</i></div>')
    assert (
        dom.html("transcript")
        == '<div id="transcript"><p id="a">new &amp; <b>bold</b></p><i>more</i> text</div>'
    )
    assert isinstance(dom.root, Node)
