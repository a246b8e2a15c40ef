"""A running presentation study: who takes part, which preset each one sees, and what their pages record.

Nothing is recorded for a page whose participant has not agreed (`join`), or has stopped (`stop`), nor for
a session that is not one the study opened for that participant. The preset of each event is the one the
study assigned, never what a page says. Participants are assigned in the order they join: alternating
through the presets, or in a shuffled order drawn from a seed (each round of as many participants as
there are presets sees every preset once, so the groups stay as even as alternating keeps them).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from webclient.domain.study_log import BadEvent, StudyEvent, checked
from webclient.errors import Refused

Assignment = Literal["alternating", "shuffled"]
PARTICIPANT_ID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
MAX_EVENTS = 200  # events one request may carry


class StudyRefusal(Refused):
    """What a page asked of the study cannot be done; the text says why."""


def assigned(presets: Sequence[str], assignment: Assignment, seed: int, number: int) -> str:
    """The preset of the `number`-th participant (0 first)."""
    count = len(presets)
    if assignment == "alternating":
        return presets[number % count]
    round_number, place = divmod(number, count)
    order = list(presets)
    random.Random(f"{seed}:{round_number}").shuffle(order)
    return order[place]


@dataclass
class Participant:
    id: str
    preset: str
    sessions: set[str] = field(default_factory=set)
    recording: bool = True


@dataclass
class Study:
    """The study this server runs: its name, the presets it compares and how they are assigned."""

    name: str
    presets: tuple[str, ...]
    assignment: Assignment = "alternating"
    seed: int = 0
    participants: dict[str, Participant] = field(default_factory=dict)

    def resume(self, earlier: dict[str, str]) -> None:
        """Participants who recorded before this server started (participant -> preset): one who joins
        again sees the same preset, and the next newcomer continues the order where it was."""
        for participant, preset in earlier.items():
            if preset in self.presets:
                self.participants.setdefault(participant, Participant(participant, preset, recording=False))

    def join(self, participant_id: str) -> Participant:
        """The participant agreed to take part: assigned a preset (the same one on a second join)."""
        if not PARTICIPANT_ID.match(participant_id):
            raise StudyRefusal("the participant id is not one this page makes")
        known = self.participants.get(participant_id)
        if known is not None:
            known.recording = True
            return known
        preset = assigned(self.presets, self.assignment, self.seed, len(self.participants))
        joined = self.participants[participant_id] = Participant(participant_id, preset)
        return joined

    def claim(self, participant: Participant, session: str) -> None:
        """`session` was opened for `participant`: its page records for them."""
        participant.sessions.add(session)

    def stop(self, participant_id: str) -> None:
        """The participant stopped recording: nothing more of theirs is recorded (until they join again)."""
        participant = self.participants.get(participant_id)
        if participant is not None:
            participant.recording = False

    def owner(self, session: str) -> Participant | None:
        """The participant a session was opened for."""
        return next((p for p in self.participants.values() if session in p.sessions), None)

    def events(self, participant_id: str, session: str, raw: Any) -> list[StudyEvent]:
        """The events a participant's page sent for `session`, checked; raises `StudyRefusal` when it may
        not record (no consent, stopped, not its session) or an event is not one."""
        participant = self.participants.get(participant_id)
        if participant is None:
            raise StudyRefusal("this page has not agreed to take part")
        if not participant.recording:
            raise StudyRefusal("recording was stopped on this page")
        if session not in participant.sessions:
            raise StudyRefusal("this session was not opened for the study")
        if not isinstance(raw, list) or len(raw) > MAX_EVENTS:
            raise StudyRefusal(f"events come as a list of at most {MAX_EVENTS}")
        fixed = {"study": self.name, "participant": participant.id, "session": session}
        found = []
        for number, item in enumerate(raw, 1):
            if not isinstance(item, dict):
                raise StudyRefusal(f"event {number} is not an object")
            given = {
                name: item.get(name) for name in ("list", "event", "rank", "elapsed_ms", "edit_distance")
            }
            try:
                found.append(checked({**given, **fixed, "preset": participant.preset}))
            except BadEvent as exc:
                raise StudyRefusal(f"event {number}: {exc}") from None
        return found
