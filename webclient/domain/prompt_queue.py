"""Prompts a person sent while the agent could not take one: they wait, in order, and none is lost.

An ACP v1 agent takes one prompt at a time, so a prompt typed while a turn runs (right after the previous
one, before the page showed "working", or while a permission request waits) waits here and goes out when
the turn ends, the first first. An ACP v2 agent queues prompts itself; a prompt sent while a cancel is in
progress waits here too. The person sees each waiting prompt and may take it back into the composer or
drop it. An auto-sent suggestion never waits: sent later, it would be a prompt nobody chose.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from webclient.acp.models import AgentStatus, ContentPart, PromptBlock, TextPart
from webclient.domain.aspects import Aspect
from webclient.domain.turn import TurnState
from webclient.errors import Refused


class SessionView(Protocol):
    """What the queue reads of the session's state (which holds the queue, so it is not imported)."""

    @property
    def agent_status(self) -> AgentStatus: ...
    @property
    def turn(self) -> TurnState: ...
    @property
    def kept(self) -> object: ...
    @property
    def display_status(self) -> str: ...


# More than this many waiting prompts is a stuck key or a script, not a person: refused, and said so.
MAX_WAITING = 20

_ids = itertools.count(1)


@dataclass(frozen=True)
class WaitingPrompt:
    """One prompt that waits: its blocks exactly as they will go out, and an id the page names it by."""

    blocks: tuple[PromptBlock, ...]
    id: str = field(default_factory=lambda: f"wait-{next(_ids)}")

    @property
    def parts(self) -> tuple[ContentPart, ...]:
        return tuple(block.part for block in self.blocks)

    @property
    def text(self) -> str:
        """Its text, as the transcript will show it (its attachments are named beside it)."""
        return "".join(part.text for part in self.parts if isinstance(part, TextPart))

    @property
    def attachments(self) -> int:
        return sum(1 for part in self.parts if not isinstance(part, TextPart))


@dataclass
class PromptQueue:
    """The prompts waiting for the running turn to end, first to go out first."""

    prompts: tuple[WaitingPrompt, ...] = ()

    def hold(self, state: SessionView, blocks: Sequence[PromptBlock], *, auto_sent: bool = False) -> set[str]:
        """Keep a prompt the agent cannot take now (it is ready, but a turn runs); raises Refused when it
        cannot wait either: an agent not ready, a stored copy, an auto-send, a full queue."""
        if not self.accepts(state):
            raise Refused(f"the agent cannot take a prompt now ({state.display_status})")
        if auto_sent:
            raise Refused("the agent is still working, so the suggestion was not sent on its own")
        if len(self.prompts) >= MAX_WAITING:
            raise Refused(
                f"{MAX_WAITING} prompts already wait for the agent; this one was not added "
                "(cancel one, or wait for the turn to end)"
            )
        self.prompts = (*self.prompts, WaitingPrompt(tuple(blocks)))
        return {Aspect.QUEUE}

    @staticmethod
    def accepts(state: SessionView) -> bool:
        """Whether a prompt the agent cannot take now may wait: a turn runs, and the agent is ready."""
        running = state.agent_status is AgentStatus.READY and state.turn is not TurnState.IDLE
        return running and state.kept is None

    def next(self) -> WaitingPrompt | None:
        """The first prompt, taken out to go out now (None: none waits); the queue (`Aspect.QUEUE`) then
        shows one fewer."""
        if not self.prompts:
            return None
        first, self.prompts = self.prompts[0], self.prompts[1:]
        return first

    def take(self, prompt_id: str) -> tuple[WaitingPrompt, set[str]]:
        """Take one prompt back (to cancel it, or to edit it in the composer); Refused if it already
        went out or was taken back."""
        found = next((p for p in self.prompts if p.id == prompt_id), None)
        if found is None:
            raise Refused("that prompt is no longer waiting: it was sent or taken back already")
        self.prompts = tuple(p for p in self.prompts if p.id != prompt_id)
        return found, {Aspect.QUEUE}

    def clear(self) -> set[str]:
        """Nothing waits any more (the session closes, or its agent is gone for good)."""
        if not self.prompts:
            return set()
        self.prompts = ()
        return {Aspect.QUEUE}
