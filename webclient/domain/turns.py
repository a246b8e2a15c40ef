"""The prompts of one session and the turns they run at its agent.

A prompt starts a turn, or waits: for the agent's `session/new` answer (the session does not exist
yet), or for the running turn's end (`prompt_queue`). A cancel asks the agent to stop, and an agent that
goes on past the grace period is called stuck. When the last running prompt ends, the session is idle
again: the agent's suggestions get a grace period, and the first prompt that waited goes out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from webclient.acp.link import AgentLink
from webclient.acp.models import NoticeLevel, PromptBlock
from webclient.aio import cancel_and_wait
from webclient.domain import unfinished
from webclient.domain.permissions import PermissionDesk
from webclient.domain.prompt_queue import WaitingPrompt
from webclient.domain.reasons import describe_stop_reason, error_detail, failure_text
from webclient.domain.state import Aspect, SessionState, TurnState
from webclient.domain.suggestions import SuggestionLedger
from webclient.errors import AgentError, AgentExitedError, Refused

# How long after a turn ends the agent may still replace or withdraw its suggestions before we call its
# earlier list stale: real agents send them shortly after the prompt response (claude-agent-acp ~60 ms).
SUGGESTION_GRACE_SECONDS = 1.5
# How long an agent may take to end its turn after `session/cancel` before we offer to stop it.
CANCEL_GRACE_SECONDS = 10.0


class TurnHost(Protocol):
    """What the turns need of their session (`LiveSession`)."""

    agent: AgentLink | None
    ledger: SuggestionLedger
    permissions: PermissionDesk
    on_status: Callable[[], None]  # told whenever the turn changes what the sidebar says
    turn_ended: Callable[[], None] | None
    note_wire: Callable[[str], None]  # a note in the session's protocol inspector

    def notice(
        self, level: NoticeLevel, text: str, detail: str | None = None, *, failure: bool = False
    ) -> None:
        """Show a notice in the session."""
        ...


class Turns:
    """The prompts one session sent and the turns they run: one at a time in ACP v1; in v2 the agent
    takes more (it queues them). `mark` takes the change keys of `state`'s transitions."""

    def __init__(
        self, host: TurnHost, state: SessionState, mark: Callable[[Iterable[str]], None], cancel_grace: float
    ) -> None:
        self._host = host
        self._state = state
        self._mark = mark
        self.cancel_grace = cancel_grace
        # A prompt sent before `session/new` answered: it goes out as soon as the session exists.
        self._queued: tuple[PromptBlock, ...] | None = None
        self._running: set[asyncio.Task[None]] = set()
        self._grace: asyncio.Task[None] | None = None
        self._cancel_watch: asyncio.Task[None] | None = None
        self._closing = False
        self._stderr_before: list[str] = []  # the agent's stderr tail when the running turn began

    def closing(self) -> None:
        """The session is closing: a turn that ends from now on starts nothing after it."""
        self._closing = True

    async def close(self) -> None:
        """End every task of these turns."""
        self._closing = True
        for task in (*self._running, self._grace, self._cancel_watch):
            if task is not None:
                await cancel_and_wait(task)

    def submit(self, blocks: Sequence[PromptBlock], *, auto_sent: bool = False) -> None:
        """See `LiveSession.submit_blocks`."""
        if not blocks:
            raise Refused("an empty prompt was not sent")
        agent = self._host.agent
        if not self._state.can_prompt or agent is None:
            self._mark(self._state.waiting.hold(self._state, blocks, auto_sent=auto_sent))
            return
        parts = [block.part for block in blocks]
        self._mark(self._state.begin_turn(parts, auto_sent=auto_sent))
        self._host.on_status()
        if not self._state.keyed_messages:
            # v1: sending is accepting. In v2 the agent accepts a prompt when it inserts its user
            # message (see LiveSession.apply), which is when an earlier suggestion list goes out of date.
            self._host.ledger.prompt_accepted()
        self.stop_grace()
        if self._state.session_id is None:
            self._queued = tuple(blocks)
            self._mark(self._state.set_queued(True))
            return
        self._start(agent, self._state.session_id, tuple(blocks))

    def _start(self, agent: AgentLink, session_id: str, blocks: tuple[PromptBlock, ...]) -> None:
        self._stderr_before = agent.process.stderr_tail()
        turn = asyncio.create_task(self._run(agent, session_id, blocks), name="turn")
        self._running.add(turn)
        turn.add_done_callback(self._running.discard)

    def session_opened(self) -> None:
        """The session exists now: send the prompt that waited for it, if one did."""
        if self._queued is None:
            return
        blocks, self._queued = self._queued, None
        self._mark(self._state.set_queued(False))
        agent = self._host.agent
        if agent is None or self._state.session_id is None:
            return
        self._start(agent, self._state.session_id, blocks)

    def drop_queued(self, reason: str) -> None:
        """The session could not be opened: the waiting prompt is not sent (it stays in the transcript)."""
        if self._queued is None:
            return
        self._queued = None
        self._mark(self._state.drop_queued())
        self._host.notice(NoticeLevel.WARNING, f"your last prompt was not sent: {reason}")

    async def cancel(self) -> None:
        """See `LiveSession.cancel`."""
        if self._queued is not None:
            self.drop_queued("you cancelled it before the session was open")
            return
        agent, session_id = self._host.agent, self._state.session_id
        if self._state.turn is not TurnState.WORKING or agent is None or session_id is None:
            raise Refused("nothing to cancel")
        self._mark(self._state.cancel_turn())
        self._host.on_status()
        self._host.permissions.cancel()  # the protocol answers a pending request "cancelled" on a cancel
        self._cancel_watch = asyncio.create_task(self._watch_cancel(), name="cancel-grace")
        try:
            await agent.cancel(session_id)
        except AgentError as exc:
            raise Refused(str(exc), error_detail(exc)) from None

    async def _watch_cancel(self) -> None:
        """An agent that has not ended its turn within the grace period ignored the cancel: say so, and
        the page offers to stop it (the turn would otherwise stay "cancelling" for ever)."""
        await asyncio.sleep(self.cancel_grace)
        if self._state.turn is TurnState.CANCELLING:
            self._mark(self._state.ignore_cancel())
            self._host.notice(
                NoticeLevel.WARNING,
                f"the agent did not stop within {self.cancel_grace:g} s of Cancel; stopping it restarts "
                "the agent, and the conversation stays",
            )

    async def _run(self, agent: AgentLink, session_id: str, blocks: tuple[PromptBlock, ...]) -> None:
        try:
            reason = await agent.prompt(session_id, blocks)
            if reason != "end_turn":
                self._host.notice(NoticeLevel.INFO, describe_stop_reason(reason))
        except AgentExitedError:
            pass  # the exit is reported once, to every session, with the agent's stderr
        except AgentError as exc:
            self._host.notice(NoticeLevel.ERROR, failure_text("the turn failed", exc), error_detail(exc))
        finally:
            if not self._others_running():
                self._end()

    def _others_running(self) -> bool:
        current = asyncio.current_task()
        return any(turn is not current and not turn.done() for turn in self._running)

    def _end(self) -> None:
        """The last running prompt ended: the session is idle again."""
        host = self._host
        host.permissions.cancel_ours()
        if self._cancel_watch is not None:
            self._cancel_watch.cancel()
        left = [card.title or card.tool_call_id for card in self._state.open_tool_calls()]
        self._mark(self._state.end_turn())
        if left:  # the cards show "not finished"; the inspector and a notice say why
            after = host.agent.process.stderr_tail() if host.agent is not None else []
            note, notice = unfinished.report(left, unfinished.written_since(self._stderr_before, after))
            host.note_wire(note)
            self._mark(self._state.add_notice(notice))
        host.on_status()
        if not self._closing:
            self._grace = asyncio.create_task(self._check_withdrawal(), name="suggestion-grace")
            if host.turn_ended is not None:
                host.turn_ended()
            waiting = self._state.waiting.next() if self._state.can_prompt and host.agent else None
            if waiting is not None:  # the first prompt that waited goes out: the queue shows one fewer
                self._mark({Aspect.QUEUE})
                self.submit(waiting.blocks)

    def take_back(self, prompt_id: str) -> WaitingPrompt:
        """A waiting prompt the person cancels or takes back to edit; Refused if it went out already."""
        taken, changed = self._state.waiting.take(prompt_id)
        self._mark(changed)
        return taken

    def stop_grace(self) -> None:
        """A prompt or a replay begins: the last turn's suggestions are no longer waited for."""
        if self._grace is not None:
            self._grace.cancel()

    async def _check_withdrawal(self) -> None:
        await asyncio.sleep(SUGGESTION_GRACE_SECONDS)
        for text in self._host.ledger.turn_settled():
            self._host.notice(NoticeLevel.WARNING, f"prompt suggestions: {text}")
