"""What an agent sends for sessions that are not open here, said as one notice per agent.

An agent may name any session id it likes; each update for one we do not show used to be a notice of
its own in every session of that agent (100,000 chunks spread over 50 made-up ids made pages of 40 MB),
and an 8 MB id showed whole. Now each session of ours has one notice for all of them, updated in place:
how many updates were ignored and the last few ids, each cut short. The messages themselves stay in the
protocol inspector, which is bounded on its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from webclient.acp.models import Notice, NoticeLevel
from webclient.domain.live_session import LiveSession
from webclient.domain.state import SessionState

SHOWN_IDS = 3  # the latest ids the notice names
ID_CHARS = 40  # of each, at most this many characters


def cut(session_id: str) -> str:
    """The id as the notice names it: quoted, at most `ID_CHARS` characters of it."""
    if len(session_id) <= ID_CHARS:
        return repr(session_id)
    return repr(session_id[:ID_CHARS]) + f"… ({len(session_id):,} characters)"


class UnknownSessions:
    """The updates one agent sent for sessions not open here: a count, the latest few ids, and, per
    session of ours, the notice that says so."""

    def __init__(self) -> None:
        self.count = 0
        self.latest: list[str] = []  # cut short, the latest last
        self._notices: dict[int, str] = {}  # a session state's id() -> its notice's item id

    def said(self, session_id: str, sessions: Sequence[LiveSession[Any]]) -> None:
        """The agent sent an update for `session_id`, not open here: every one of `sessions` says so."""
        self.record(session_id)
        self.forget(live.state for live in sessions)
        notice = self.notice()
        for live in sessions:  # its notice updated in place, or a new one
            self._notices[id(live.state)] = live.renew_notice(notice, self._notices.get(id(live.state)))

    def record(self, session_id: str) -> None:
        self.count += 1
        shown = cut(session_id)
        if shown in self.latest:
            self.latest.remove(shown)
        self.latest.append(shown)
        del self.latest[:-SHOWN_IDS]

    def notice(self) -> Notice:
        if self.count == 1:
            text = f"ignored an update for unknown session {self.latest[-1]}"
        else:
            text = (
                f"ignored updates for unknown sessions: {self.count:,} in all, the latest for "
                f"{', '.join(reversed(self.latest))} (the messages are in the protocol inspector)"
            )
        return Notice(level=NoticeLevel.WARNING, text=text)

    def forget(self, states: Iterable[SessionState]) -> None:
        """Keep the notices of these sessions only (the others closed)."""
        alive = {id(s) for s in states}
        self._notices = {k: v for k, v in self._notices.items() if k in alive}
