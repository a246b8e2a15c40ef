"""Which `idle` ends which prompt, in ACP v2: its `session/prompt` answers at once, the turn ends later."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

from webclient.acp.jsonrpc import INTERNAL_ERROR
from webclient.acp.models import MessageChunk, MessageUpsert, StateEvent
from webclient.errors import AgentRequestError


@dataclass(eq=False)
class PromptWait:
    done: asyncio.Future[str]
    accepted: bool = False  # the agent answered `{}`
    started: bool = False  # the agent inserted its user message (or, failing that, began work after it)


@dataclass
class Turns:
    """The prompts of one session that wait for their end.

    v2 updates name no prompt, so the end of each is inferred from the order the agent must follow: it
    inserts a prompt's user message when it accepts it, and reports `idle` when that work is done. A
    prompt counts as started at the first new user message after it was sent (oldest prompt first); an
    `idle` ends every started prompt. An `idle` that comes before (the session's earlier state) ends
    nothing. For an agent that never inserts user messages, a `running` after the acceptance starts it.
    """

    waits: list[PromptWait] = field(default_factory=list)
    user_messages: set[str] = field(default_factory=set)
    inserts_user_messages: bool = False
    # Cancel was sent: the next `idle` ends every prompt, also those the agent queued and then dropped
    # without inserting them (they would otherwise wait for ever).
    cancelling: bool = False

    def add(self) -> PromptWait:
        wait = PromptWait(asyncio.get_running_loop().create_future())
        self.waits.append(wait)
        return wait

    def remove(self, wait: PromptWait) -> None:
        with contextlib.suppress(ValueError):
            self.waits.remove(wait)

    def observe(self, event: object) -> None:
        if isinstance(event, MessageChunk | MessageUpsert) and event.role == "user":
            self._user_message(event.message_id)
        elif isinstance(event, StateEvent):
            self._state(event)

    def fail(self, error: Exception) -> None:
        for wait in self.waits:
            if not wait.done.done():
                wait.done.set_exception(error)

    def _user_message(self, message_id: str | None) -> None:
        if message_id is None or message_id in self.user_messages:
            return
        self.user_messages.add(message_id)
        self.inserts_user_messages = True
        waiting = next((w for w in self.waits if not w.started), None)
        if waiting is not None:
            waiting.started = True

    def _state(self, event: StateEvent) -> None:
        if event.state in ("running", "requires_action") and not self.inserts_user_messages:
            for wait in self.waits:
                if wait.accepted:
                    wait.started = True
        if event.state != "idle":
            return
        ending, self.cancelling = self.cancelling, False
        for wait in self.waits:
            if not (wait.started or ending) or wait.done.done():
                continue
            if event.error is not None:  # the `error` stop reason: the prompt failed, for this reason
                error = event.error
                failed = AgentRequestError(
                    "session/prompt", error.code or INTERNAL_ERROR, error.message, error.data
                )
                wait.done.set_exception(failed)
            else:
                wait.done.set_result(event.stop_reason or ("cancelled" if ending else "end_turn"))
