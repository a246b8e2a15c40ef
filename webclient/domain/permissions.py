"""The permission requests one session has open: each is an entry in the session's transcript (the
state's) and a future the asker waits on (ours). Only the user's choice of one of the request's own
options approves; anything else answers "cancelled".
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable

from webclient.acp.models import PermissionOutcome, PermissionRequest
from webclient.domain.items import PermissionItem
from webclient.domain.state import Aspect, SessionState
from webclient.errors import Refused


class PermissionDesk:
    """Asks the user on behalf of the agent (or of webclient itself, for a protected write) and hands
    each answer to whoever asked. `mark` takes the change keys; `on_status` is told whenever whether a
    question waits may have changed (the sidebar shows it)."""

    def __init__(
        self, state: SessionState, mark: Callable[[Iterable[str]], None], on_status: Callable[[], None]
    ) -> None:
        self._state = state
        self._mark = mark
        self._told = on_status
        self._futures: dict[str, asyncio.Future[PermissionOutcome]] = {}  # by the request's item id
        self._ours: set[str] = set()  # the requests webclient asked itself: a turn's end answers them
        self._closed = False

    def _on_status(self) -> None:
        # Whether the session waits for the user shows in its status badge too, not only the sidebar.
        self._mark({Aspect.STATUS})
        self._told()

    @property
    def waiting(self) -> bool:
        """A request still waits for the user."""
        return any(not f.done() for f in self._futures.values())

    async def ask(self, request: PermissionRequest, *, ours: bool = False) -> PermissionOutcome:
        """Show the request and wait for the user's answer; anything but a choice is "cancelled"."""
        item = PermissionItem(request=request, asked_by_client=ours)
        future: asyncio.Future[PermissionOutcome] = asyncio.get_running_loop().create_future()
        self._futures[item.id] = future
        if ours:
            self._ours.add(item.id)
        self._mark(self._state.add_item(item))
        self._on_status()
        try:
            return await future
        finally:
            self._futures.pop(item.id, None)
            self._ours.discard(item.id)
            # The asker gave up waiting, or the session is closing: the question is withdrawn.
            self._mark(self._state.withdraw_permission(item.id))
            if not self._closed:
                self._on_status()

    def answer(self, request_id: str, option_id: str) -> None:
        """The user chose an option; fails closed: an unknown, late or repeated answer approves nothing."""
        future = self._futures.get(request_id)
        item = self._state.item(request_id)
        if future is None or future.done() or not isinstance(item, PermissionItem):
            raise Refused("that permission request is no longer pending; nothing was approved")
        option = item.request.option(option_id)
        if option is None:
            raise Refused("that is not one of the agent's options; nothing was approved")
        self._mark(self._state.answer_permission(item.id, option.name or option_id))
        future.set_result(PermissionOutcome(option_id=option_id))
        self._on_status()

    def cancel(self, only: Iterable[str] | None = None) -> None:
        """Answer every open request (or those in `only`) "cancelled"."""
        chosen = set(self._futures) if only is None else set(only)
        for request_id, future in list(self._futures.items()):
            if request_id not in chosen:
                continue
            if not future.done():
                future.set_result(PermissionOutcome.cancelled())
            self._mark(self._state.withdraw_permission(request_id))

    def cancel_ours(self) -> None:
        """The turn ended: a write webclient asked about in it dies with it."""
        self.cancel(set(self._ours))

    def close(self) -> None:
        """The session is closing: every open request is answered "cancelled", and nobody is told."""
        self._closed = True
        self.cancel()
