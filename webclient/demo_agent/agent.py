"""The ACP Agent: session lifecycle, turns, cancellation and when suggestions go out.

Method signatures follow ``acp.interfaces.Agent``; the SDK router validates requests into these keyword
arguments (and spreads any ``_meta`` keys into ``**kwargs``, hence the catch-alls).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from functools import partial
from pathlib import Path
from typing import Any

from acp.exceptions import RequestError
from acp.meta import PROTOCOL_VERSION
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from . import __version__
from .blocks import text, to_json
from .capabilities import AGENT_PROMPT_CAPABILITIES, SuggestionSupport
from .commands import AVAILABLE_COMMANDS
from .config import DemoSettings
from .features import ClientFeatures
from .intents import Intent, classify, read_prompt
from .modes import SessionSettings, mode_state
from .offers import SuggestionOffers
from .predictions import predict
from .replies import Reply, answer
from .session import DemoSession
from .store import SessionRecord, SessionStore
from .streaming import split_chunks, stream_chunks
from .tasks import TaskOwner
from .tools import TOOL_KINDS, ToolContext, run_tool, thought_for
from .updates import (
    ClientChannel,
    agent_message,
    agent_thought,
    available_commands,
    config_options,
    current_mode,
    replayed,
    session_title,
    usage,
)
from .workspace import Workspace

__all__ = ["AGENT_INFO", "DemoAgent"]

log = logging.getLogger(__name__)

AGENT_INFO = Implementation(name="webclient-demo", title="webclient demo agent", version=__version__)
# usage_update: a pretend context window, and ~4 characters of stored conversation per token.
CONTEXT_WINDOW_TOKENS = 200_000
CHARS_PER_TOKEN = 4


class DemoAgent:
    """An offline ACP v1 agent over one connection; the reference Agent for prompt suggestions."""

    def __init__(self, settings: DemoSettings, sink: ClientChannel, store: SessionStore) -> None:
        self._settings = settings
        self._sink = sink
        self._store = store
        self._support = SuggestionSupport()
        self._features = ClientFeatures()
        self._sessions: dict[str, DemoSession] = {}
        self._tasks = TaskOwner("demo-agent")

    def record_initialize_params(self, params: Any) -> None:
        """Take the client's capabilities from the raw ``initialize`` params, before the SDK drops fields."""
        self._support = SuggestionSupport.from_initialize_params(params)
        self._features = ClientFeatures.from_initialize_params(params)

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        # v1 is the only version we (and the SDK) speak, whatever the client asked for.
        capabilities = AgentCapabilities(
            load_session=True,
            prompt_capabilities=AGENT_PROMPT_CAPABILITIES,
            session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
        )
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=capabilities,
            auth_methods=[],
            agent_info=AGENT_INFO,
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        record = self._store.create(_checked_cwd(cwd))
        live = await self._open(record)
        self._tasks.spawn(self._advertise_commands(live.session_id))
        return NewSessionResponse(
            session_id=live.session_id,
            modes=mode_state(live.settings.mode),
            config_options=live.settings.config_options(),
        )

    async def load_session(self, cwd: str, session_id: str, **kwargs: Any) -> LoadSessionResponse:
        """Replay the stored conversation as message chunks, then return; never replays suggestions."""
        record = self._store.load(session_id)
        if record is None:
            raise RequestError.invalid_params({"sessionId": session_id, "reason": "no such session"})
        record.cwd = _checked_cwd(cwd)
        # A fresh DemoSession: a loaded session starts with an empty suggestion list.
        live = await self._open(record)
        async with live.lock:  # a prompt that arrives mid-replay waits for the replay to finish
            for entry in record.history:
                for block in entry.content:
                    await self._sink.session_update(session_id, replayed(entry.role, block, entry.message_id))
        self._store.save(record)
        self._tasks.spawn(self._advertise_commands(session_id))
        live.title_sent = record.title is not None
        return LoadSessionResponse(
            modes=mode_state(live.settings.mode), config_options=live.settings.config_options()
        )

    async def list_sessions(self, cwd: str | None = None, **kwargs: Any) -> ListSessionsResponse:
        records = [r for r in self._store.all() if cwd is None or r.cwd == cwd]
        return ListSessionsResponse(sessions=[_session_info(r) for r in records])

    async def set_session_mode(self, mode_id: str, session_id: str, **kwargs: Any) -> SetSessionModeResponse:
        """Switch mode and confirm it with ``current_mode_update``."""
        live = self._live(session_id)
        live.settings.set_mode(mode_id)
        await self._sink.session_update(session_id, current_mode(mode_id))
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: Any, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        """Set one option; answer with the full list and repeat it as ``config_option_update``."""
        live = self._live(session_id)
        live.settings.set_option(config_id, value)
        options = live.settings.config_options()
        await self._sink.session_update(session_id, config_options(options))
        return SetSessionConfigOptionResponse(config_options=options)

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        """Run one turn: withdraw stale suggestions, think, stream the answer, then schedule a prediction."""
        live = self._live(session_id)
        turn = live.offers.accept_prompt()  # before any await: a stale prediction must not go out now
        async with live.lock:
            cancelled = live.begin_turn()
            try:
                reply = await self._take_turn(live, prompt, cancelled)
                await self._report_session(live)
            finally:
                live.end_turn()
        if cancelled.is_set():
            return PromptResponse(stop_reason="cancelled")  # and no prediction for a cancelled turn
        self._schedule_suggestions(live, turn, reply)
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        if live := self._sessions.get(session_id):
            live.cancel_turn()

    async def close(self) -> None:
        """Stop every turn and background task; called when the connection ends."""
        for live in list(self._sessions.values()):
            await live.close()
        await self._tasks.close()

    async def _open(self, record: SessionRecord) -> DemoSession:
        if previous := self._sessions.pop(record.session_id, None):
            await previous.close()
        live = DemoSession(
            record,
            Workspace(record.cwd),
            SuggestionOffers(record.session_id, self._sink),
            settings=SessionSettings(boolean_config=self._features.boolean_config),
        )
        self._sessions[record.session_id] = live
        return live

    def _live(self, session_id: str) -> DemoSession:
        live = self._sessions.get(session_id)
        if live is None:
            raise RequestError.invalid_params(
                {"sessionId": session_id, "reason": "unknown session; load it first"}
            )
        return live

    async def _take_turn(self, live: DemoSession, prompt: list[Any], cancelled: asyncio.Event) -> Reply:
        await live.offers.withdraw()  # the first update of the turn, if a list is on offer
        view = read_prompt(prompt)
        intent = classify(view.text)
        if intent.kind in TOOL_KINDS:
            reply = await self._use_tools(live, intent, cancelled)
        else:
            reply = answer(view, intent, live.workspace, self._support)
        sent = await self._stream(live, reply, cancelled)
        live.record.append("user", _new_id(), [to_json(block) for block in prompt])
        if sent:
            live.record.append("agent", _new_id(), [text(sent)])
        self._store.save(live.record)
        return reply

    async def _use_tools(self, live: DemoSession, intent: Intent, cancelled: asyncio.Event) -> Reply:
        """A tool turn: its thought goes out first, then its tool calls; the reply text is streamed after."""
        thought = agent_thought(thought_for(intent), message_id=_new_id())
        await self._sink.session_update(live.session_id, thought)
        text = await run_tool(intent, ToolContext(self._sink, live, self._features, cancelled))
        return Reply("", text)

    async def _report_session(self, live: DemoSession) -> None:
        """End of turn: name the session once it has a title, and report (pretend) context use and cost."""
        record = live.record
        if record.title is not None and not live.title_sent:
            live.title_sent = True
            await self._sink.session_update(live.session_id, session_title(record.title, record.updated_at))
        characters = sum(len(str(block)) for entry in record.history for block in entry.content)
        used = min(characters // CHARS_PER_TOKEN, CONTEXT_WINDOW_TOKENS)
        cost = round(used / 1000 * live.settings.price_per_1k_usd, 6)
        await self._sink.session_update(live.session_id, usage(used, CONTEXT_WINDOW_TOKENS, cost))

    async def _stream(self, live: DemoSession, reply: Reply, cancelled: asyncio.Event) -> str:
        """Send the thought, then the answer; returns the answer text actually sent."""
        sid = live.session_id
        thought_id, message_id = _new_id(), _new_id()
        thought = partial(agent_thought, message_id=thought_id)
        if reply.thought:  # a tool turn sent its thought before its tool calls
            await stream_chunks(self._sink, sid, [reply.thought], thought, 0, cancelled)
        if reply.line_by_line:
            chunks, delay_s = reply.text.splitlines(keepends=True), self._settings.slow_step_s
        else:
            chunks, delay_s = split_chunks(reply.text), self._settings.chunk_delay_s
        message = partial(agent_message, message_id=message_id)
        return await stream_chunks(self._sink, sid, chunks, message, delay_s, cancelled)

    def _schedule_suggestions(self, live: DemoSession, turn: int, reply: Reply) -> None:
        """After the response: a scenario's exact list, or a prediction if the client advertised support."""
        scenario = reply.scenario
        if scenario is not None and scenario.delay_ms is not None:
            live.next_delay_ms = scenario.delay_ms
            return
        if scenario is not None:
            suggestions: Any = scenario.suggestions
        elif self._support.advertised and reply.topic is not None:
            suggestions = predict(reply.topic, live.workspace, self._support) or None
        else:
            suggestions = None
        if suggestions is not None:
            live.offers.schedule(turn, suggestions, live.take_delay_s(self._settings.prediction_delay_s))

    async def _advertise_commands(self, session_id: str) -> None:
        # Spawned from new/load, so it runs after their response is queued: the client knows the session.
        try:
            await self._sink.session_update(session_id, available_commands(AVAILABLE_COMMANDS))
        except ConnectionError:
            log.debug("connection closed before commands for %s went out", session_id)


def _checked_cwd(cwd: str) -> str:
    path = Path(cwd)
    if not path.is_absolute() or not path.is_dir():
        raise RequestError.invalid_params(
            {"cwd": cwd, "reason": "cwd must be an absolute path to a directory"}
        )
    return cwd


def _session_info(record: SessionRecord) -> SessionInfo:
    return SessionInfo(
        session_id=record.session_id, cwd=record.cwd, title=record.title, updated_at=record.updated_at
    )


def _new_id() -> str:
    return uuid.uuid4().hex
