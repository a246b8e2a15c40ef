"""The protocol inspector panel, live: one session's view of the `WireLog` rendered for each tab.

The hub marks `INSPECTOR` dirty when a message of the session (or of the connection) crossed the wire;
on its next flush each tab gets only the entries it has not seen, appended to the panel's list. A tab
that fell far behind, or whose session changed its agent id (a restart), gets the list replaced with the
newest `RENDER_CAP` entries instead, and the browser trims appended entries to the same cap, so a flood
of messages costs the browser at most `RENDER_CAP` entries. The download has everything the log keeps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from webclient.acp.wire_log import WireEntry, WireLog, base_time, pretty, since_ms
from webclient.domain.state import SessionState

RENDER_CAP = 500

_UNSEEN = object()


@dataclass
class Cursor:
    """What one tab's inspector list holds: the session id it was rendered for and the last entry."""

    scope: Any = _UNSEEN
    last_seq: int = 0


class InspectorFeed:
    """Renders one session's inspector for its tabs."""

    def __init__(self, log: WireLog, state: SessionState) -> None:
        self.log = log
        self.state = state

    def batch(self) -> Batch:
        """The view as of now; render it for any number of tabs, each entry at most once."""
        session_id = self.state.session_id
        entries = self.log.view(session_id)
        return Batch(
            session_id, entries, base_time(self.log, session_id, entries), self.log.dropped(session_id)
        )


class Batch:
    def __init__(self, session_id: str | None, entries: list[WireEntry], base: float, dropped: int) -> None:
        self.session_id = session_id
        self.entries = entries
        self.base = base
        self.dropped = dropped
        self._html: dict[int, str] = {}

    def frame_for(self, cursor: Cursor) -> str:
        """The swaps that bring this tab's panel up to date (empty if it is); advances the cursor."""
        last = self.entries[-1].seq if self.entries else 0
        if cursor.scope is _UNSEEN or cursor.scope != self.session_id:
            return self._replace(cursor, last)
        new = [e for e in self.entries[-RENDER_CAP:] if e.seq > cursor.last_seq]
        if not new:
            return ""
        if len(new) >= RENDER_CAP:
            return self._replace(cursor, last)
        cursor.last_seq = last
        body = "".join(self._entry(e) for e in new)
        return self._note() + str(
            Markup('<ol hx-swap-oob="beforeend:#inspector-entries">{}</ol>').format(Markup(body))
        )

    def _replace(self, cursor: Cursor, last: int) -> str:
        cursor.scope = self.session_id
        cursor.last_seq = last
        body = "".join(self._entry(e) for e in self.entries[-RENDER_CAP:])
        return self._note() + _partial("_inspector_entries.html", body=Markup(body), oob=True)

    def _note(self) -> str:
        hidden = max(0, len(self.entries) - RENDER_CAP) + self.dropped
        return _partial("_inspector_note.html", hidden=hidden, dropped=self.dropped, oob=True)

    def _entry(self, entry: WireEntry) -> str:
        html = self._html.get(entry.seq)
        if html is None:
            html = self._html[entry.seq] = _partial(
                "_inspector_entry.html",
                entry=entry,
                since=_seconds(since_ms(entry, self.base)),
                pretty=pretty(entry.message),
            )
        return html


def _seconds(ms: float) -> str:
    return f"{ms / 1000:+.3f} s"


def _partial(name: str, **context: Any) -> str:
    from webclient.views import render  # render imports the session layer; keep this module importable alone

    return render.environment().get_template(name).render(**context)
