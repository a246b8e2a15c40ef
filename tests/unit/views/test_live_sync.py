"""A tab stays in step with its session: every frame numbered from its snapshot on, a digest once the
changes are out, and a fresh snapshot before the next frame when the page asks for one (the page's side,
which finds a gap, a duplicate or a frame after a reconnect, is tests/js/live_sync.test.js)."""

from __future__ import annotations

import asyncio
import re

from webclient.acp.models import AgentStatus, MessageChunk, Suggestion, TextPart
from webclient.domain.state import SessionState
from webclient.views import live_sync
from webclient.views.live import LiveHub
from webclient.views.subscriber import Subscriber

HEADER = re.compile(r"^<!--seq (\d+)( snapshot)?(?: digest (\S+))?-->")


def frames(sub: Subscriber) -> list[tuple[int, bool, str | None, str]]:
    """Each frame waiting for the tab: its number, whether it is a snapshot, its digest, its body."""
    out = []
    while not sub.frames.empty():
        frame = sub.frames.get_nowait()
        assert frame is not None
        m = HEADER.match(frame)
        assert m is not None, f"a frame without its header: {frame[:80]!r}"
        out.append((int(m[1]), bool(m[2]), m[3], frame[m.end() :]))
    return out


def says(hub: LiveHub, text: str) -> None:
    hub.mark(hub.state.apply(MessageChunk(role="agent", content=TextPart(text=text))))


def ready_hub() -> LiveHub:
    state = SessionState(session_id="s-1")
    state.set_agent_status(AgentStatus.READY)
    return LiveHub(state, interval=0)


def test_a_header_numbers_a_frame_and_may_say_snapshot_and_digest() -> None:
    assert live_sync.header(3) == "<!--seq 3-->"
    assert live_sync.header(1, snapshot=True) == "<!--seq 1 snapshot-->"
    assert live_sync.header(9, digest="ready|0|0|none") == "<!--seq 9 digest ready|0|0|none-->"


def test_the_digest_names_the_status_the_list_on_offer_and_the_last_entry() -> None:
    state = SessionState(session_id="s-1")
    state.set_agent_status(AgentStatus.READY)
    assert live_sync.digest(state) == "ready|0|0|none"
    state.apply(MessageChunk(role="agent", content=TextPart(text="hi")))
    state.set_suggestions((Suggestion(parts=(), wire=()), Suggestion(parts=(), wire=())))
    last = state.items[-1].id
    assert live_sync.digest(state) == f"ready|{state.suggestions_generation}|2|{last}"


async def test_frames_are_numbered_one_by_one_from_the_snapshot() -> None:
    hub = ready_hub()
    sub = hub.subscribe()
    for word in ("a", "b", "c"):
        says(hub, word)
        hub.flush()
    hub.broadcast("<p>to every tab</p>")
    got = frames(sub)
    assert [seq for seq, *_ in got] == [1, 2, 3, 4, 5]
    assert [snap for _, snap, *_ in got] == [True, False, False, False, False]


async def test_each_tab_counts_its_own_frames() -> None:
    hub = ready_hub()
    first = hub.subscribe()
    says(hub, "a")
    hub.flush()
    second = hub.subscribe()
    says(hub, "b")
    hub.flush()
    assert [seq for seq, *_ in frames(first)] == [1, 2, 3]
    assert [seq for seq, *_ in frames(second)] == [1, 2]


async def test_a_resync_sends_a_snapshot_before_the_next_frame_and_the_frames_after_it_build_on_it() -> None:
    hub = ready_hub()
    sub = hub.subscribe()
    says(hub, "lost on the way")
    hub.flush()
    frames(sub)  # the page missed one of these
    hub.resync(sub)
    says(hub, " and more")
    hub.flush()
    (snapshot,) = frames(sub)  # it has the change that was due: no frame of it follows
    assert snapshot[:2] == (3, True)
    assert "lost on the way and more" in snapshot[3]  # the whole state as it is now
    says(hub, " still")
    hub.flush()
    ((seq, is_snapshot, _, body),) = frames(sub)
    assert (seq, is_snapshot) == (4, False)
    assert "still" in body
    assert "beforeend:#transcript" not in body  # the answer is one the snapshot gave it, not appended anew


async def test_a_resync_is_sent_even_when_nothing_changed() -> None:
    hub = ready_hub()
    sub = hub.subscribe()
    frames(sub)
    hub.resync(sub)
    hub.start()
    try:
        seq, snapshot, _, _ = await asyncio.wait_for(next_frame(sub), 5)
    finally:
        await hub.stop()
    assert (seq, snapshot) == (2, True)


async def next_frame(sub: Subscriber) -> tuple[int, bool, str | None, str]:
    frame = await sub.frames.get()
    assert frame is not None
    m = HEADER.match(frame)
    assert m is not None
    return int(m[1]), bool(m[2]), m[3], frame[m.end() :]


async def test_a_digest_follows_a_burst_once_every_change_is_out_and_says_what_the_page_shows() -> None:
    hub = ready_hub()
    sub = hub.subscribe()
    frames(sub)
    hub.start()
    try:
        says(hub, "hello")
        seq, _, digest, body = await asyncio.wait_for(next_frame(sub), 5)
        assert digest is None and "hello" in body
        seq2, snapshot, digest, body = await asyncio.wait_for(next_frame(sub), 5)
    finally:
        await hub.stop()
    assert (seq2, snapshot, body) == (seq + 1, False, "")
    assert digest == live_sync.digest(hub.state)
    assert digest.endswith(hub.state.items[-1].id)


async def test_no_digest_goes_out_while_a_change_waits_to_be_sent() -> None:
    hub = ready_hub()
    sub = hub.subscribe()
    frames(sub)
    told: list[str] = []
    beacon = live_sync.DigestBeacon(hub.state, told.append, lambda: False)  # never settled
    beacon.frame_sent()
    await asyncio.sleep(live_sync.QUIET_AFTER * 2)
    beacon.stop()
    assert told == []
