"""The ACP v2 Agent: raw JSON requests over the shared core, with v2's prompt lifecycle.

A prompt is accepted at once (``{}``) and queued; when its turn starts the agent inserts the
``user_message`` (that is when, in v2, it accepts the prompt for the RFD), reports ``running``, runs the
shared turn, and ends it with ``state_update`` ``idle`` + ``stopReason``. Every update the core sends
passes through ``V2Channel``, which shapes it for v2 (``dialect_v2.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any

from acp.exceptions import RequestError
from acp.meta import CLIENT_METHODS
from acp.schema import (
    AudioContentBlock,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
)
from pydantic import Field, TypeAdapter, ValidationError

from . import dialect_v2 as v2
from .blocks import JsonDict
from .capabilities import SuggestionSupport
from .config import DemoSettings
from .core import AgentCore, TurnPrompt, checked_cwd, new_id
from .features import ClientFeatures
from .modes import SessionSettings
from .replies import Reply
from .session import DemoSession
from .store import SessionRecord, SessionStore
from .workspace import Workspace

__all__ = ["DemoAgentV2", "V2Channel"]

log = logging.getLogger(__name__)

# How long session/close waits for a cancelled turn to send its idle before dropping it anyway.
CLOSE_WAIT_S = 5.0
_BLOCK: TypeAdapter[Any] = TypeAdapter(
    Annotated[
        TextContentBlock
        | ImageContentBlock
        | AudioContentBlock
        | ResourceContentBlock
        | EmbeddedResourceContentBlock,
        Field(discriminator="type"),
    ]
)

Notify = Callable[[str, JsonDict], Awaitable[None]]
Request = Callable[[str, JsonDict], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class QueuedPrompt:
    """A prompt answered ``{}`` that waits for its turn; ``turn`` is its suggestion-offer token."""

    content: list[Any]
    turn: int


@dataclass(slots=True)
class V2Session:
    """A live session's v2 state: its prompt queue, the task running it, and the current plan id."""

    live: DemoSession
    queue: deque[QueuedPrompt] = field(default_factory=deque)
    runner: asyncio.Task[None] | None = None
    plan_id: str = field(default_factory=lambda: f"plan_{new_id()[:12]}")
    tools_with_content: set[str] = field(default_factory=set)

    @property
    def settings(self) -> SessionSettings:
        return self.live.settings

    @property
    def workspace(self) -> Workspace:
        return self.live.workspace


class V2Channel:
    """The core's ``ClientChannel`` on a v2 connection: every update and request shaped for v2.

    A permission request is wrapped in ``state_update`` ``requires_action`` before it and ``running``
    after it is answered (unless the answer is ``cancelled``, which only a cancelled turn gets).
    """

    def __init__(self, notify: Notify, request: Request, sessions: dict[str, V2Session]) -> None:
        self._notify = notify
        self._request = request
        self._sessions = sessions

    async def session_update(self, session_id: str, update: JsonDict) -> None:
        view = self._sessions.get(session_id)
        for shaped in [update] if view is None else v2.translate_update(update, view):
            await self._notify(CLIENT_METHODS["session_update"], {"sessionId": session_id, "update": shaped})

    async def request(self, method: str, params: JsonDict) -> Any:
        view = self._sessions.get(str(params.get("sessionId")))
        if method != CLIENT_METHODS["session_request_permission"] or view is None:
            # fs/* and terminal/* do not exist in v2; the core never sends them on a v2 connection.
            raise RequestError.method_not_found(method)
        session_id = view.live.session_id
        await self.session_update(session_id, v2.state_update("requires_action"))
        result = await self._request(method, v2.permission_request(params, view))
        outcome = result.get("outcome") if isinstance(result, dict) else None
        if not (isinstance(outcome, dict) and outcome.get("outcome") == "cancelled"):
            await self.session_update(session_id, v2.state_update("running"))
        return result


class DemoAgentV2:
    """The demo agent on a v2 connection: ``handle`` answers requests, ``notice`` takes notifications."""

    def __init__(self, settings: DemoSettings, notify: Notify, request: Request, store: SessionStore) -> None:
        self._states: dict[str, V2Session] = {}
        self._channel = V2Channel(notify, request, self._states)
        self._core = AgentCore(settings, self._channel, store)
        self._store = store
        self._initialized = False
        self._methods: dict[str, Callable[[JsonDict], Awaitable[Any]]] = {
            "initialize": self._initialize,
            "session/new": self._new,
            "session/list": self._list,
            "session/resume": self._resume,
            "session/close": self._close_session,
            "session/delete": self._delete,
            "session/prompt": self._prompt,
            "session/set_config_option": self._set_config_option,
        }

    async def handle(self, method: str, params: Any) -> Any:
        """Answer one request; unknown methods are ``-32601``, malformed params ``-32602``."""
        handler = self._methods.get(method)
        if handler is None:
            raise RequestError.method_not_found(method)
        if method != "initialize" and not self._initialized:
            raise RequestError.invalid_request({"reason": "initialize first"})
        return await handler(params if isinstance(params, dict) else {})

    async def notice(self, method: str, params: Any) -> None:
        """Take one notification: ``session/cancel``; anything else is ignored."""
        if method != "session/cancel" or not isinstance(params, dict):
            return
        if state := self._states.get(str(params.get("sessionId"))):
            await self._cancel(state)

    async def _cancel(self, state: V2Session) -> None:
        """Stop the running turn (its idle ``cancelled`` follows once it has flushed) and drop queued prompts.

        Queued prompts never started, so they never entered the conversation (no ``user_message``); if
        only those were cancelled, one idle ``cancelled`` confirms it.
        """
        dropped = bool(state.queue)
        state.queue.clear()
        if state.live.cancelled is not None:
            state.live.cancel_turn()
        elif dropped:
            await self._channel.session_update(state.live.session_id, v2.state_update("idle", "cancelled"))

    async def close(self) -> None:
        """Stop every turn and background task; called when the connection ends."""
        await self._core.close()

    # -- connection --------------------------------------------------------------------------------------

    async def _initialize(self, params: JsonDict) -> JsonDict:
        if self._initialized:
            raise RequestError.invalid_request({"reason": "the connection is already initialized"})
        self._initialized = True
        self._core.support = SuggestionSupport.from_v2_initialize_params(params)
        self._core.features = ClientFeatures.for_v2()
        return v2.initialize_result()

    # -- sessions ----------------------------------------------------------------------------------------

    async def _new(self, params: JsonDict) -> JsonDict:
        record = self._store.create(checked_cwd(params.get("cwd")))
        state = await self._attach(record)
        self._core.advertise_commands_later(record.session_id)
        return {"sessionId": record.session_id, "configOptions": v2.config_options(state.settings)}

    async def _list(self, params: JsonDict) -> JsonDict:
        cwd = params.get("cwd")
        records = [r for r in self._store.all() if not isinstance(cwd, str) or r.cwd == cwd]
        return {"sessions": [_session_info(record) for record in records]}

    async def _resume(self, params: JsonDict) -> JsonDict:
        """Reattach (no ``replayFrom``), or replay the whole history first (``{"type": "start"}``).

        Either way the session's suggestion list starts empty and no prediction goes out before the
        answer: a pending one is dropped, and replay never includes suggestions.
        """
        session_id, cwd = _text(params, "sessionId"), checked_cwd(params.get("cwd"))
        replay = _replay_from(params.get("replayFrom"))
        state = self._states.get(session_id)
        if state is None:
            record = self._store.load(session_id)
            if record is None:
                raise RequestError.invalid_params({"sessionId": session_id, "reason": "no such session"})
            record.cwd = cwd
            state = await self._attach(record)
        state.live.offers.reset()
        if replay:
            async with state.live.lock:  # a running turn finishes first: replay only whole exchanges
                await self._replay(state)
        record = state.live.record
        self._store.save(record)
        state.live.title_sent = record.title is not None
        self._core.advertise_commands_later(session_id)
        return {"configOptions": v2.config_options(state.settings)}

    async def _replay(self, state: V2Session) -> None:
        sid = state.live.session_id
        for entry in state.live.record.history:
            make = v2.user_message if entry.role == "user" else v2.agent_message
            await self._channel.session_update(sid, make(entry.message_id, entry.content))

    async def _close_session(self, params: JsonDict) -> JsonDict:
        """Cancel the running turn as ``session/cancel`` would (its idle goes out), drop queued prompts."""
        session_id = _text(params, "sessionId")
        if session_id not in self._states and self._store.load(session_id) is None:
            raise RequestError.invalid_params({"sessionId": session_id, "reason": "no such session"})
        await self._detach(session_id)
        return {}

    async def _delete(self, params: JsonDict) -> JsonDict:
        session_id = _text(params, "sessionId")
        if session_id not in self._states and self._store.load(session_id) is None:
            raise RequestError.invalid_params({"sessionId": session_id, "reason": "no such session"})
        await self._detach(session_id)
        self._store.delete(session_id)
        return {}

    async def _set_config_option(self, params: JsonDict) -> JsonDict:
        """Set one option (``type`` ``id`` or ``boolean``); answer the full list, repeat it as an update."""
        state = self._state(params)
        config_id, kind, value = _text(params, "configId"), params.get("type"), params.get("value")
        if (kind, type(value)) not in (("id", str), ("boolean", bool)):
            raise RequestError.invalid_params(
                {
                    "type": kind,
                    "value": value,
                    "reason": 'use type "id" with a string or "boolean" with a bool',
                }
            )
        if config_id == v2.MODE_CONFIG_ID:
            if kind != "id":
                raise RequestError.invalid_params({"configId": config_id, "reason": "mode takes an id"})
            state.settings.set_mode(str(value))
        else:
            state.settings.set_option(config_id, value)
        options = v2.config_options(state.settings)
        await self._channel.session_update(
            state.live.session_id, {"sessionUpdate": "config_option_update", "configOptions": options}
        )
        return {"configOptions": options}

    # -- prompts -----------------------------------------------------------------------------------------

    async def _prompt(self, params: JsonDict) -> JsonDict:
        """Accept and queue; the turn starts once the running one (if any) has ended."""
        state = self._state(params)
        content = params.get("prompt")
        if not isinstance(content, list) or not content:
            raise RequestError.invalid_params({"prompt": content, "reason": "a non-empty list of blocks"})
        # Before any await, in wire order: a prediction not yet sent no longer applies.
        turn = state.live.offers.accept_prompt()
        state.queue.append(QueuedPrompt(content, turn))
        if state.runner is None or state.runner.done():
            state.runner = self._core.tasks.spawn(self._run_queue(state))
        return {}

    async def _run_queue(self, state: V2Session) -> None:
        while state.queue:
            queued = state.queue.popleft()
            cancelled = state.live.begin_turn()  # in the same step: from now on a cancel reaches this turn
            try:
                await self._run_turn(state, queued, cancelled)
            finally:
                state.live.end_turn()

    async def _run_turn(self, state: V2Session, queued: QueuedPrompt, cancelled: asyncio.Event) -> None:
        """user_message, running, the shared turn, idle + stopReason; then, maybe, a prediction."""
        live, sid = state.live, state.live.session_id
        async with live.lock:  # a replay in progress finishes first
            if cancelled.is_set():  # cancelled before it started: it never enters the conversation
                await self._channel.session_update(sid, v2.state_update("idle", "cancelled"))
                return
            try:
                reply = await self._take_turn(state, queued, cancelled)
            except ConnectionError:
                return
            except Exception:
                log.exception("turn failed in %s", sid)
                reply = None
            stop = "cancelled" if cancelled.is_set() else "end_turn"
            await self._channel.session_update(sid, v2.state_update("idle", stop))
        if reply is not None and not cancelled.is_set():
            self._core.schedule_suggestions(live, queued.turn, reply)

    async def _take_turn(self, state: V2Session, queued: QueuedPrompt, cancelled: asyncio.Event) -> Reply:
        live, sid = state.live, state.live.session_id
        prompt = TurnPrompt(_blocks(queued.content), queued.content, new_id())
        await self._channel.session_update(sid, v2.user_message(prompt.user_message_id, queued.content))
        await live.offers.withdraw()  # the prompt is accepted now: a list on offer is out of date
        await self._channel.session_update(sid, v2.state_update("running"))
        state.plan_id = f"plan_{new_id()[:12]}"
        reply = await self._core.take_turn(live, prompt, cancelled)
        await self._core.report_session(live)
        return reply

    # -- helpers -----------------------------------------------------------------------------------------

    async def _attach(self, record: SessionRecord) -> V2Session:
        await self._detach(record.session_id)
        state = V2Session(await self._core.open(record))
        self._states[record.session_id] = state
        return state

    async def _detach(self, session_id: str) -> None:
        state = self._states.get(session_id)
        if state is None:
            return
        await self._cancel(state)
        if state.runner is not None and not state.runner.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(state.runner), CLOSE_WAIT_S)
            state.runner.cancel()
        self._states.pop(session_id, None)
        await self._core.forget(session_id)

    def _state(self, params: JsonDict) -> V2Session:
        session_id = _text(params, "sessionId")
        state = self._states.get(session_id)
        if state is None:
            raise RequestError.invalid_params(
                {"sessionId": session_id, "reason": "unknown session; resume it first"}
            )
        return state


def _blocks(content: list[Any]) -> list[Any]:
    """The prompt's blocks as SDK models for the shared core; blocks it cannot read are skipped."""
    blocks = []
    for raw in content:
        with contextlib.suppress(ValidationError):
            blocks.append(_BLOCK.validate_python(raw))
    return blocks


def _replay_from(value: Any) -> bool:
    """Whether to replay: omitted/null = no, ``{"type": "start"}`` = yes, any other cursor is refused."""
    if value is None:
        return False
    if isinstance(value, dict) and value.get("type") == "start":
        return True
    raise RequestError.invalid_params({"replayFrom": value, "reason": 'only {"type": "start"} is supported'})


def _text(params: JsonDict, key: str) -> str:
    value = params.get(key)
    if not isinstance(value, str):
        raise RequestError.invalid_params({key: value, "reason": f"{key} must be a string"})
    return value


def _session_info(record: SessionRecord) -> JsonDict:
    info: JsonDict = {"sessionId": record.session_id, "cwd": record.cwd, "updatedAt": record.updated_at}
    if record.title is not None:
        info["title"] = record.title
    return info
