"""The ACP v1 Agent: SDK-typed requests and results over the shared core (``core.py``).

Method signatures follow ``acp.interfaces.Agent``; the SDK router validates requests into these keyword
arguments (and spreads any ``_meta`` keys into ``**kwargs``, hence the catch-alls).
"""

from __future__ import annotations

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
from .capabilities import AGENT_PROMPT_CAPABILITIES, SuggestionSupport
from .config import DemoSettings
from .core import AgentCore, checked_cwd, prompt_for_v1
from .features import ClientFeatures
from .modes import mode_state
from .store import SessionRecord, SessionStore
from .updates import ClientChannel, config_options, current_mode, replayed

__all__ = ["AGENT_INFO", "DemoAgent"]

AGENT_INFO = Implementation(name="webclient-demo", title="webclient demo agent", version=__version__)


class DemoAgent:
    """An offline ACP v1 agent over one connection; the reference Agent for prompt suggestions."""

    def __init__(self, settings: DemoSettings, sink: ClientChannel, store: SessionStore) -> None:
        self._core = AgentCore(settings, sink, store)
        self._sink = sink
        self._store = store

    def record_initialize_params(self, params: Any) -> None:
        """Take the client's capabilities from the raw ``initialize`` params, before the SDK drops fields."""
        self._core.support = SuggestionSupport.from_initialize_params(params)
        self._core.features = ClientFeatures.from_initialize_params(params)

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        # v1 is the only version the SDK speaks; a v2 client never gets here (wire.py routes it to v2).
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
        record = self._store.create(checked_cwd(cwd))
        live = await self._core.open(record)
        self._core.advertise_commands_later(live.session_id)
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
        record.cwd = checked_cwd(cwd)
        # A fresh DemoSession: a loaded session starts with an empty suggestion list.
        live = await self._core.open(record)
        async with live.lock:  # a prompt that arrives mid-replay waits for the replay to finish
            for entry in record.history:
                for block in entry.content:
                    await self._sink.session_update(session_id, replayed(entry.role, block, entry.message_id))
        self._store.save(record)
        self._core.advertise_commands_later(session_id)
        live.title_sent = record.title is not None
        return LoadSessionResponse(
            modes=mode_state(live.settings.mode), config_options=live.settings.config_options()
        )

    async def list_sessions(self, cwd: str | None = None, **kwargs: Any) -> ListSessionsResponse:
        records = [r for r in self._store.all() if cwd is None or r.cwd == cwd]
        return ListSessionsResponse(sessions=[_session_info(r) for r in records])

    async def set_session_mode(self, mode_id: str, session_id: str, **kwargs: Any) -> SetSessionModeResponse:
        """Switch mode and confirm it with ``current_mode_update``."""
        live = self._core.live(session_id)
        live.settings.set_mode(mode_id)
        await self._sink.session_update(session_id, current_mode(mode_id))
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: Any, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        """Set one option; answer with the full list and repeat it as ``config_option_update``."""
        live = self._core.live(session_id)
        live.settings.set_option(config_id, value)
        options = live.settings.config_options()
        await self._sink.session_update(session_id, config_options(options))
        return SetSessionConfigOptionResponse(config_options=options)

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        """Run one turn: withdraw stale suggestions, think, stream the answer, then schedule a prediction."""
        live = self._core.live(session_id)
        turn = live.offers.accept_prompt()  # before any await: a stale prediction must not go out now
        async with live.lock:
            cancelled = live.begin_turn()
            try:
                reply = await self._core.take_turn(live, prompt_for_v1(prompt), cancelled)
                await self._core.report_session(live)
            finally:
                live.end_turn()
        if cancelled.is_set():
            return PromptResponse(stop_reason="cancelled")  # and no prediction for a cancelled turn
        self._core.schedule_suggestions(live, turn, reply)
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        if live := self._core.sessions.get(session_id):
            live.cancel_turn()

    async def close(self) -> None:
        """Stop every turn and background task; called when the connection ends."""
        await self._core.close()


def _session_info(record: SessionRecord) -> SessionInfo:
    return SessionInfo(
        session_id=record.session_id, cwd=record.cwd, title=record.title, updated_at=record.updated_at
    )
