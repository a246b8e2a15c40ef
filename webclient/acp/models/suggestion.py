"""A prompt suggestion, as the protocol layer hands it on: parsed and checked against what was negotiated
(`webclient/acp/suggestions.py`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from webclient.acp.models.content import ContentPart, PromptBlock, TextPart


@dataclass(frozen=True)
class Suggestion:
    """One offer for the user's next prompt.

    `wire` holds the agent's blocks exactly as received: a chosen suggestion is sent back as the
    `prompt` of `session/prompt` unchanged (deep-equal), while `parts` is what the page shows.
    """

    parts: tuple[ContentPart, ...]
    wire: tuple[dict[str, Any], ...]

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def blocks(self) -> tuple[PromptBlock, ...]:
        """The suggestion as a prompt to send: each part with the agent's own block as its original."""
        return tuple(
            PromptBlock(part=part, original=block) for part, block in zip(self.parts, self.wire, strict=True)
        )

    @property
    def attachments(self) -> tuple[ContentPart, ...]:
        return tuple(p for p in self.parts if not isinstance(p, TextPart))


@dataclass(frozen=True)
class Skipped:
    """A suggestion left out of the list, and why (kept for the notices agent developers read).

    `rule` names the RFD rule it breaks: `shape` (not a valid prompt: no list, a malformed block, a
    bad `_meta`), `blank` (only empty or whitespace-only text), `type` (a block type not allowed on both
    sides) or `display` (valid, but this client cannot show it: not the agent's fault)."""

    index: int
    reason: str
    agent_fault: bool = True
    rule: str = field(default="shape", compare=False)
