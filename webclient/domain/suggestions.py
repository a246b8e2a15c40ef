"""Prompt suggestions in a session: the list on offer and the Agent rules a client can observe.

Pure bookkeeping over what the protocol layer parsed and checked (a `SuggestionsEvent`, from
`webclient/acp/suggestions.py`): every update replaces the list, nothing from a `session/load` replay is
offered, the legacy `_meta` channel yields to the RFD's update, and a list the agent leaves standing after
a new prompt is reported.
"""

from __future__ import annotations

from dataclasses import dataclass

from webclient.acp.models import Suggestion, SuggestionsEvent, TextPart
from webclient.errors import Refused

# The most characters of text the page shows of one suggestion at all: one of 5,000,000 characters took
# 23 s to show and made a 25 MB page. Past it, a suggestion is oversized: its chip shows its first
# characters and links to the whole text, and it is neither sent nor edited from there, since it could not
# be read there.
SHOWN_LIMIT = 4000


def unshown_chars(suggestion: Suggestion) -> int:
    """How many characters of the suggestion's text lie past `SHOWN_LIMIT` (0: it shows whole)."""
    return max(sum(len(p.text) for p in suggestion.parts if isinstance(p, TextPart)) - SHOWN_LIMIT, 0)


def refuse_unread(suggestion: Suggestion, what: str) -> None:
    """A suggestion the page cannot show whole is never used unread: Refused, saying it was not `what`."""
    if unshown := unshown_chars(suggestion):
        raise Refused(
            f"that suggestion is {unshown:,} characters longer than the page can show, so it was not "
            f"{what}; download its whole text from the suggestion to read it"
        )


@dataclass(frozen=True)
class SuggestionPolicy:
    """What was negotiated at `initialize`: whether we advertised the capability (the protocol layer
    has checked each suggestion's block types already)."""

    advertised: bool


@dataclass(frozen=True)
class Outcome:
    """What one incoming update means: the list to offer (None: leave it) and diagnostics to show."""

    offered: tuple[Suggestion, ...] | None
    notices: tuple[str, ...] = ()


class SuggestionLedger:
    """One session's view of the agent's suggestion list, and the Agent rules a client can observe.

    Pure bookkeeping; the caller supplies events in order and shows the returned diagnostics.
    """

    def __init__(self, policy: SuggestionPolicy) -> None:
        self.policy = policy
        self.replaying = False
        self.seen_real_update = False
        self._agent_list_nonempty = False
        self._awaiting_replacement = False

    def receive(self, event: SuggestionsEvent) -> Outcome:
        """Suggestions arrived for this session: a `prompt_suggestions_update`, or the legacy channel."""
        if event.legacy:
            return self._receive_legacy(event)
        if not self.policy.advertised:
            return Outcome(
                None,
                (
                    "the agent sent prompt suggestions although this client did not advertise "
                    "the promptSuggestions capability; they were ignored",
                ),
            )
        if event.malformed is not None:
            return Outcome(None, (f"{event.malformed}; the current suggestions were kept",))
        self.seen_real_update = True
        return self._accept(event)

    def _receive_legacy(self, event: SuggestionsEvent) -> Outcome:
        """A `session_info_update` carried `_meta.promptSuggestions`, the pre-RFD channel."""
        if not self.policy.advertised:
            return Outcome(None)  # suggestions are switched off: none from any channel
        if self.seen_real_update:
            return Outcome(None)  # the RFD's update supersedes the legacy key for this session
        if event.malformed is not None:
            return Outcome(None, (f"{event.malformed}; the current suggestions were kept",))
        return self._accept(event)

    def prompt_accepted(self) -> None:
        """We sent a prompt: a non-empty list the agent sent earlier is now out of date."""
        self._awaiting_replacement = self._agent_list_nonempty

    def turn_settled(self) -> tuple[str, ...]:
        """The turn ended and its grace period passed: did the agent replace or withdraw its list?"""
        if not self._awaiting_replacement:
            return ()
        self._awaiting_replacement = False
        return (
            "the agent accepted a new prompt but neither replaced nor withdrew its earlier, non-empty "
            "suggestion list (the RFD requires one or the other)",
        )

    def begin_replay(self) -> None:
        self.replaying = True
        self._agent_list_nonempty = False
        self._awaiting_replacement = False

    def end_replay(self) -> None:
        self.replaying = False

    def _accept(self, parsed: SuggestionsEvent) -> Outcome:
        notices = [f"skipped suggestion {s.index + 1}: {s.reason}" for s in parsed.skipped]
        if self.replaying:
            notices.append(
                "the agent sent prompt suggestions while the session was being loaded or resumed "
                "(during its replay); they are not offered"
            )
            return Outcome(None, tuple(notices))
        self._agent_list_nonempty = parsed.sent > 0
        self._awaiting_replacement = False
        return Outcome(parsed.suggestions, tuple(notices))
