"""The application core both protocol versions share: open sessions, run a turn, report it, predict.

A turn here is version-free: it reads the prompt, answers or uses tools, streams the reply and records the
conversation. The v1 agent (``agent.py``, SDK-typed) and the v2 agent (``agent_v2.py``, raw JSON) only
decide how a turn is started, acknowledged and ended on the wire.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from acp.exceptions import RequestError

from .blocks import JsonDict, text, to_json
from .capabilities import SuggestionSupport
from .commands import AVAILABLE_COMMANDS
from .config import DemoSettings
from .features import ClientFeatures
from .intents import Intent, classify, read_prompt
from .modes import SessionSettings
from .offers import SuggestionOffers
from .predictions import predict
from .replies import Reply, answer
from .session import DemoSession
from .store import SessionRecord, SessionStore
from .streaming import split_chunks, stream_chunks
from .tasks import TaskOwner
from .tools import TOOL_KINDS, ToolContext, run_tool, thought_for
from .updates import ClientChannel, agent_message, agent_thought, available_commands, session_title, usage
from .workspace import Workspace

__all__ = ["AgentCore", "TurnPrompt", "checked_cwd", "new_id", "prompt_for_v1"]

log = logging.getLogger(__name__)

# usage_update: a pretend context window, and ~4 characters of stored conversation per token.
CONTEXT_WINDOW_TOKENS = 200_000
CHARS_PER_TOKEN = 4


@dataclass(frozen=True, slots=True)
class TurnPrompt:
    """A prompt as the core runs it: SDK content blocks to act on, the JSON to store, the user message id."""

    blocks: list[Any]
    stored: list[JsonDict]
    user_message_id: str


class AgentCore:
    """Sessions, turns and suggestions over one connection; ``sink`` sends updates already shaped for it.

    ``support`` and ``features`` are set once the version layer has read ``initialize``.
    """

    def __init__(self, settings: DemoSettings, sink: ClientChannel, store: SessionStore) -> None:
        self.settings = settings
        self.sink = sink
        self.store = store
        self.support = SuggestionSupport()
        self.features = ClientFeatures()
        self.sessions: dict[str, DemoSession] = {}
        self.tasks = TaskOwner("demo-agent")

    async def open(self, record: SessionRecord) -> DemoSession:
        """A fresh live session for ``record`` (an empty suggestion list), closing any previous one."""
        if previous := self.sessions.pop(record.session_id, None):
            await previous.close()
        live = DemoSession(
            record,
            Workspace(record.cwd),
            SuggestionOffers(record.session_id, self.sink),
            settings=SessionSettings(boolean_config=self.features.boolean_config),
        )
        self.sessions[record.session_id] = live
        return live

    def live(self, session_id: str) -> DemoSession:
        live = self.sessions.get(session_id)
        if live is None:
            raise RequestError.invalid_params(
                {"sessionId": session_id, "reason": "unknown session; load it first"}
            )
        return live

    async def forget(self, session_id: str) -> None:
        """Stop and drop a live session (its stored record stays)."""
        if live := self.sessions.pop(session_id, None):
            await live.close()

    async def close(self) -> None:
        """Stop every turn and background task; called when the connection ends."""
        for live in list(self.sessions.values()):
            await live.close()
        await self.tasks.close()

    async def take_turn(self, live: DemoSession, prompt: TurnPrompt, cancelled: asyncio.Event) -> Reply:
        """Withdraw stale suggestions, answer (or use tools), stream it and record the exchange."""
        await live.offers.withdraw()  # the first update of the turn, if a list is on offer
        view = read_prompt(prompt.blocks)
        intent = classify(view.text)
        if intent.kind in TOOL_KINDS:
            reply = await self._use_tools(live, intent, cancelled)
        else:
            reply = answer(view, intent, live.workspace, self.support, self.features.protocol)
        sent, message_id = await self._stream(live, reply, cancelled)
        live.record.append("user", prompt.user_message_id, prompt.stored)
        if sent:
            live.record.append("agent", message_id, [text(sent)])
        self.store.save(live.record)
        return reply

    async def report_session(self, live: DemoSession) -> None:
        """End of turn: name the session once it has a title, and report (pretend) context use and cost."""
        record = live.record
        if record.title is not None and not live.title_sent:
            live.title_sent = True
            await self.sink.session_update(live.session_id, session_title(record.title, record.updated_at))
        characters = sum(len(str(block)) for entry in record.history for block in entry.content)
        used = min(characters // CHARS_PER_TOKEN, CONTEXT_WINDOW_TOKENS)
        cost = round(used / 1000 * live.settings.price_per_1k_usd, 6)
        await self.sink.session_update(live.session_id, usage(used, CONTEXT_WINDOW_TOKENS, cost))

    def schedule_suggestions(self, live: DemoSession, turn: int, reply: Reply) -> None:
        """After the turn: a scenario's exact list, or a prediction if the client advertised support."""
        scenario = reply.scenario
        if scenario is not None and scenario.delay_ms is not None:
            live.next_delay_ms = scenario.delay_ms
            return
        if scenario is not None:
            suggestions: Any = scenario.suggestions
        elif self.support.advertised and reply.topic is not None:
            suggestions = predict(reply.topic, live.workspace, self.support) or None
        else:
            suggestions = None
        if suggestions is not None:
            live.offers.schedule(turn, suggestions, live.take_delay_s(self.settings.prediction_delay_s))

    def advertise_commands_later(self, session_id: str) -> None:
        """Send the slash commands from a task, so they follow the response being answered now."""
        self.tasks.spawn(self._advertise_commands(session_id))

    async def _advertise_commands(self, session_id: str) -> None:
        try:
            await self.sink.session_update(session_id, available_commands(AVAILABLE_COMMANDS))
        except ConnectionError:
            log.debug("connection closed before commands for %s went out", session_id)

    async def _use_tools(self, live: DemoSession, intent: Intent, cancelled: asyncio.Event) -> Reply:
        """A tool turn: its thought goes out first, then its tool calls; the reply text is streamed after."""
        thought = agent_thought(thought_for(intent), message_id=new_id())
        await self.sink.session_update(live.session_id, thought)
        text = await run_tool(intent, ToolContext(self.sink, live, self.features, cancelled))
        return Reply("", text)

    async def _stream(self, live: DemoSession, reply: Reply, cancelled: asyncio.Event) -> tuple[str, str]:
        """Send the thought, then the answer; returns the answer text actually sent and its messageId."""
        sid = live.session_id
        thought_id, message_id = new_id(), new_id()
        thought = partial(agent_thought, message_id=thought_id)
        if reply.thought:  # a tool turn sent its thought before its tool calls
            await stream_chunks(self.sink, sid, [reply.thought], thought, 0, cancelled)
        if reply.line_by_line:
            chunks, delay_s = reply.text.splitlines(keepends=True), self.settings.slow_step_s
        else:
            chunks, delay_s = split_chunks(reply.text), self.settings.chunk_delay_s
        message = partial(agent_message, message_id=message_id)
        sent = await stream_chunks(self.sink, sid, chunks, message, delay_s, cancelled)
        return sent, message_id


def prompt_for_v1(blocks: list[Any]) -> TurnPrompt:
    """A v1 prompt (SDK models, validated by the router), stored as their JSON under a fresh id."""
    return TurnPrompt(blocks, [to_json(block) for block in blocks], new_id())


def checked_cwd(cwd: Any) -> str:
    """``cwd`` if it is an absolute path to a directory; otherwise invalid_params."""
    path = Path(cwd) if isinstance(cwd, str) else None
    if path is None or not path.is_absolute() or not path.is_dir():
        raise RequestError.invalid_params(
            {"cwd": cwd, "reason": "cwd must be an absolute path to a directory"}
        )
    return str(cwd)


def new_id() -> str:
    return uuid.uuid4().hex
