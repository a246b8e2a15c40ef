"""How a tab stays in step with its session: every frame numbered, a digest at quiet moments, a fresh
snapshot when the page finds it missed something.

Each frame a tab is sent starts with a header the page reads before it swaps anything, an HTML comment
(htmx ignores it): `<!--seq 12-->`, `<!--seq 1 snapshot-->` for a full snapshot, `<!--seq 13 digest
D-->` for a frame that only says what the page should show by now. The numbers count from 1 on each
connection. A page that finds a number missing (a frame lost on the way), or a digest other than its
own, asks for a snapshot (`{"action": "resync"}`) and ignores the frames before it.

The digest names what a person would see to be wrong: the status badge, the suggestion list on offer
and the last transcript entry. The page reads the same from its markup (`static/live_sync.js`).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

from webclient.domain.state import SessionState, TurnState

# After the last frame of a burst, the tab is told the digest this much later: a frame lost at the end of
# a turn (no later frame to show a gap) is found within this, and recovered in the time of a snapshot.
QUIET_AFTER = 0.4
# While a turn runs, a tab is told the digest at least this often, frames or not.
BUSY_EVERY = 1.5

_SAFE = re.compile(r"[^A-Za-z0-9_.:-]")


def header(seq: int, *, snapshot: bool = False, digest: str | None = None) -> str:
    """The comment a frame starts with; `digest` must come from `digest()` (no spaces, no `--`)."""
    words = [f"seq {seq}"]
    if snapshot:
        words.append("snapshot")
    if digest is not None:
        words.append(f"digest {digest}")
    return "<!--" + " ".join(words) + "-->"


def digest(state: SessionState) -> str:
    """What the page should show by now, in a few words: status, the list on offer (its generation and
    length) and the id of the transcript's last entry ("none" if there is none)."""
    last = state.items[-1].id if state.items else "none"
    words = (state.display_status, str(state.suggestions_generation), str(len(state.suggestions)), last)
    # Ids and states are ours and plain already; made safe anyway, so a digest never ends the comment.
    return "|".join(_SAFE.sub("_", word).replace("--", "_") for word in words)


def busy(state: SessionState) -> bool:
    """Whether a turn runs (the digest then goes out at a low rate even without frames)."""
    return state.turn is not TurnState.IDLE


class DigestBeacon:
    """Tells a session's tabs its digest `QUIET_AFTER` after the last frame, and every `BUSY_EVERY` while
    a turn runs; only when every change is out (`settled`), so the digest matches the frames before it."""

    def __init__(self, state: SessionState, send: Callable[[str], None], settled: Callable[[], bool]) -> None:
        self._state = state
        self._send = send
        self._settled = settled
        self._timer: asyncio.TimerHandle | None = None
        self._last = -float("inf")

    def frame_sent(self) -> None:
        """A frame went out: the digest follows once the frames stop (or soon, while a turn runs)."""
        now = asyncio.get_running_loop().time()
        due = now + QUIET_AFTER
        if busy(self._state):
            due = min(due, max(now, self._last + BUSY_EVERY))
        self._schedule(due)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _schedule(self, due: float) -> None:
        self.stop()
        self._timer = asyncio.get_running_loop().call_at(due, self._due)

    def _due(self) -> None:
        self._timer = None
        if not self._settled():  # a frame is on its way: the digest comes after it
            return
        self._last = asyncio.get_running_loop().time()
        self._send(digest(self._state))
        if busy(self._state):
            self._schedule(self._last + BUSY_EVERY)
