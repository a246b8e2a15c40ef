"""How a session tells the layers above what changed, without knowing who listens or how they show it.

A `LiveSession` holds one `ChangeSink`; every state transition returns change keys (an `Aspect`, or a
transcript entry's id) and the session hands them to `mark`, and to its other observers (the transcript
keeper: `LiveSession.observe`). The web layer plugs in the view layer's hub, which renders and sends
them; the domain's own `PendingChanges` just collects them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol, TypeVar

from webclient.domain.state import SessionState


class ChangeSink(Protocol):
    """Receives one session's change keys; started with the session and stopped when it closes."""

    def start(self) -> None: ...

    async def stop(self) -> None: ...

    def mark(self, keys: Iterable[str]) -> None: ...


SinkT = TypeVar("SinkT", bound=ChangeSink)
SinkFactory = Callable[[SessionState], SinkT]


class PendingChanges:
    """A sink that only collects keys until someone takes them: for sessions nobody shows."""

    def __init__(self) -> None:
        self.keys: set[str] = set()

    def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    def mark(self, keys: Iterable[str]) -> None:
        self.keys.update(keys)

    @classmethod
    def factory(cls, _: SessionState) -> PendingChanges:
        """A `SinkFactory` for sessions nobody shows."""
        return cls()

    def take(self) -> set[str]:
        keys, self.keys = self.keys, set()
        return keys
