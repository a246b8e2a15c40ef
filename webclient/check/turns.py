"""A run's turns as the client saw them: each prompt, when the agent accepted it, when the turn ended,
and the suggestion lists around those points, from which the lifetime rules are judged.

Acceptance: in v2 the agent inserts the user message (or answers the prompt); v1 shows no acceptance, so
the agent's first update of the turn stands for it (a heuristic, which the report says).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from webclient.acp.models import SuggestionsEvent
from webclient.check.recorder import Event
from webclient.check.runner import Run


def content(event: Event) -> str:
    """What a list says, to tell one list from another (usable suggestions as sent, skipped by reason)."""
    found = event.suggestions
    if found is None:
        return ""
    return json.dumps([[s.wire for s in found.suggestions], [s.reason for s in found.skipped]], default=repr)


@dataclass
class Turn:
    """One turn of one session, as the client saw it."""

    prompt: Event
    accepted: Event | None = None  # v2: the user message inserted (or the answer); v1: first update
    end: Event | None = None  # v1: the answer; v2: the idle after acceptance
    standing: Event | None = None  # the non-empty list current when it was accepted
    lists: list[Event] | None = None  # the lists that arrived after acceptance, before its end
    before_reply: list[Event] | None = None  # of those, the ones before any of the agent's answer
    earlier: frozenset[str] = frozenset()  # contents of the lists sent in this session before it


def turns(run: Run) -> list[Turn]:
    """Every turn of `run`, with its acceptance, its end and the lists around them."""
    found: list[Turn] = []
    sessions: dict[str, _Session] = {}
    for event in run.recorder.events:
        session = sessions.setdefault(event.session_id or "", _Session(run))
        if event.kind == "prompt":
            found.append(session.prompt(event))
        else:
            session.see(event)
    return found


@dataclass
class _Session:
    """One session's walk through the run: its open turn, the list standing now, the lists it sent."""

    run: Run
    turn: Turn | None = None
    current: Event | None = None  # the last non-empty list, until an empty one withdraws it
    sent: set[str] = field(default_factory=set)

    def prompt(self, event: Event) -> Turn:
        self.turn = Turn(event, lists=[], before_reply=[], earlier=frozenset(self.sent))
        if self.run.version == 1:
            self.turn.standing = self.current
        return self.turn

    def see(self, event: Event) -> None:
        turn = self.turn
        if turn is not None and turn.accepted is None and _accepts(self.run.version, event):
            turn.accepted = event
            if self.run.version == 2:
                turn.standing = self.current
            if event.kind != "update":
                return
        if event.kind == "suggestions" and event.suggestions is not None:
            self._list(event, event.suggestions)
        if turn is not None and _ends(self.run.version, event, turn):
            turn.end = event
            self.turn = None

    def _list(self, event: Event, found: SuggestionsEvent) -> None:
        turn = self.turn
        if turn is not None and turn.accepted is not None and turn.lists is not None:
            turn.lists.append(event)
            # v1 takes the turn's first update as its acceptance: a list in that very update may have
            # crossed the prompt in transit, so it is not held against the agent.
            crossed = self.run.version == 1 and event.line == turn.accepted.line
            if turn.before_reply is not None and not crossed and not _replied(self.run, turn, event):
                turn.before_reply.append(event)
        if found.malformed is None:
            if found.sent:
                self.current = event
                self.sent.add(content(event))
            else:
                self.current = None


def _accepts(version: int, event: Event) -> bool:
    if version == 1:
        return event.kind in ("update", "response")
    return event.kind in ("user", "response")


def _ends(version: int, event: Event, turn: Turn) -> bool:
    if version == 1:
        return event.kind == "response"
    return event.kind == "idle" and turn.accepted is not None


def _replied(run: Run, turn: Turn, before: Event) -> bool:
    """Whether the agent's answer of `turn` had begun before `before` arrived."""
    events = run.recorder.events
    start = events.index(turn.prompt)
    stop = events.index(before)
    return any(e.kind == "reply" and e.session_id == turn.prompt.session_id for e in events[start:stop])
