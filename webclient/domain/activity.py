"""What an ACP v2 agent does beside the conversation: the background work it keeps running after a
turn, and the compactions of its context. The status region shows both; the user may stop background
work the agent lets stop (`terminal/cancel`, `tool_call/cancel`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from webclient.acp.models import BackgroundWork, CompactionEvent, Notice, NoticeLevel, StateEvent

# A compaction's end -> what the notice says, and how loud.
COMPACTION_ENDS = {
    "completed": (NoticeLevel.INFO, "the agent compacted the conversation to save context"),
    "failed": (NoticeLevel.WARNING, "the agent could not compact the conversation"),
    "cancelled": (NoticeLevel.INFO, "the agent's compaction of the conversation was cancelled"),
}


@dataclass
class Activity:
    """The agent's latest background list and its compactions under way (id -> the summary so far)."""

    background: tuple[BackgroundWork, ...] = ()
    compactions: dict[str, str] = field(default_factory=dict)

    def shown_in(self, region: str) -> set[str]:
        """`{region}` while there is background work (a change to its terminals or tool calls shows
        there too), else nothing."""
        return {region} if self.background else set()

    @property
    def tool_calls(self) -> frozenset[str]:
        """The ids of the tool calls running in the background (not left open by a turn: kept)."""
        return frozenset(w.id for w in self.background if w.kind == "tool_call")

    @property
    def compacting(self) -> bool:
        return bool(self.compactions)

    def apply(
        self, event: StateEvent | CompactionEvent, add_notice: Callable[[Notice], set[str]]
    ) -> set[str]:
        """Apply a state or compaction event; a compaction that ended says so with `add_notice` (its
        summary in the details). Returns the transcript keys the notice changed."""
        if isinstance(event, StateEvent):
            if event.background is not None:  # left out: unchanged
                self.background = event.background
            return set()
        summary = self.compactions.get(event.compaction_id, "")
        summary = event.summary if event.summary is not None else summary + event.appended
        if event.status is None or event.status == "in_progress":
            self.compactions[event.compaction_id] = summary
            return set()
        self.compactions.pop(event.compaction_id, None)
        level, text = COMPACTION_ENDS.get(event.status, (NoticeLevel.INFO, f"compaction {event.status}"))
        detail = "\n".join(part for part in (event.error, summary) if part) or None
        return add_notice(Notice(level=level, text=text, detail=detail))

    def stoppable(self, kind: str, work_id: str) -> bool:
        """Whether `kind`/`work_id` is background work the agent reported (and so may be stopped)."""
        return any(w.kind == kind and w.id == work_id for w in self.background)
