"""One session's suggestion list as the client sees it, and the prediction waiting to replace it.

The RFD's lifetime rules live here: a prediction belongs to one turn and is dropped if a newer prompt was
accepted before it went out; accepting a prompt withdraws a non-empty list before anything else of that
turn; a session (new or loaded) starts with an empty list.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from .tasks import TaskOwner
from .updates import UpdateSink, prompt_suggestions

__all__ = ["SuggestionOffers"]

log = logging.getLogger(__name__)


class SuggestionOffers:
    """Sends ``prompt_suggestions_update`` for one session and tracks whether the current list is empty."""

    def __init__(self, session_id: str, sink: UpdateSink) -> None:
        self._session_id = session_id
        self._sink = sink
        self._turn = 0
        self._offered = False  # whether the last list we sent was anything other than []
        self._pending: asyncio.Task[None] | None = None
        self._tasks = TaskOwner(f"suggestions[{session_id}]")

    def accept_prompt(self) -> int:
        """Note that a prompt was accepted; returns the turn token its own prediction must carry.

        Synchronous on purpose: it runs in wire order as the prompt arrives, so a prediction for an earlier
        turn that has not gone out yet can never go out after this point.
        """
        self._turn += 1
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        return self._turn

    def reset(self) -> None:
        """A resumed session starts with an empty list: drop any pending prediction and forget the offer.

        Also synchronous, so a prediction can never go out in the middle of the replay that follows.
        """
        self.accept_prompt()
        self._offered = False

    async def withdraw(self) -> None:
        """Send ``suggestions: []`` if the client may still be offering a list from an earlier turn."""
        if self._offered:
            await self._send([])

    def schedule(self, turn: int, suggestions: Any, delay_s: float) -> None:
        """Send ``suggestions`` after ``delay_s`` unless another prompt is accepted first."""
        if turn != self._turn:
            return
        self._pending = self._tasks.spawn(self._deliver(turn, suggestions, delay_s))

    async def close(self) -> None:
        await self._tasks.close()

    async def _deliver(self, turn: int, suggestions: Any, delay_s: float) -> None:
        # Even with no delay this runs after the prompt response: the response is queued for writing in
        # the same step in which the prompt handler returns, before any other task gets to run.
        await asyncio.sleep(delay_s)
        if turn != self._turn:
            return  # the conversation moved on; this prediction no longer applies
        self._pending = None
        try:
            await self._send(suggestions)
        except ConnectionError:
            log.debug("connection closed before suggestions for %s went out", self._session_id)

    async def _send(self, suggestions: Any) -> None:
        # Recorded before the await: once queued the list reaches the client, so a prompt accepted while
        # this send is in flight must still withdraw it.
        self._offered = suggestions != []
        await self._sink.session_update(self._session_id, prompt_suggestions(suggestions))
