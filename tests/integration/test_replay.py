"""The replay agent plays a demo-agent session recorded by the protocol inspector: the same answers and
suggestions in ACP v1 and v2, a notice for a prompt that is not the recorded one, and the end of it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Literal

import pytest

from tests.support.driver import SessionDriver, started, turn
from tests.support.polling import eventually
from tests.support.workspace import make_workspace
from webclient.acp.models import AgentStatus
from webclient.acp.wire_log import session_jsonl
from webclient.domain.items import MessageItem, NoticeItem
from webclient.settings import Settings

TURN_SECONDS = 30
PROMPTS = ("help", "list the files")

pytestmark = pytest.mark.asyncio


@asynccontextmanager
async def session(root: Path, agent: str, protocol: Literal["1", "2"]) -> AsyncIterator[SessionDriver]:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("WEBCLIENT_DEMO_STATE_DIR", str(root / "demo-state"))
        env.setenv("WEBCLIENT_DEMO_CHUNK_DELAY_MS", "0")
        workspace = root / "workspace"
        settings = Settings(
            agent=agent,
            cwd=workspace if workspace.is_dir() else make_workspace(workspace),
            flush_interval=0,
            protocol=protocol,
            state_dir=root / "state",
        )
        async with started(settings) as driver:
            assert driver.state.agent_status is AgentStatus.READY
            await eventually(lambda: driver.state.session_id is not None, TURN_SECONDS, "the session")
            yield driver


def agent_texts(driver: SessionDriver) -> list[str]:
    return [i.text for i in driver.state.items if isinstance(i, MessageItem) and i.role == "agent"]


def suggestion_texts(driver: SessionDriver) -> list[str]:
    return [s.text for s in driver.state.suggestions]


async def record(root: Path, protocol: Literal["1", "2"]) -> tuple[Path, list[list[str]], list[str]]:
    """A demo-agent session of two prompts, downloaded as the inspector does; with what it showed."""
    async with session(root, "", protocol) as demo:
        shown: list[list[str]] = []
        for prompt in PROMPTS:
            await turn(demo, prompt)
            await eventually(lambda: bool(demo.state.suggestions), TURN_SECONDS, "suggestions")
            shown.append(suggestion_texts(demo))
        [route] = demo.registry.agents.values()
        path = root / "recorded.jsonl"
        path.write_text(session_jsonl(route.wire_log, demo.state.session_id))
        return path, shown, agent_texts(demo)


@pytest.mark.parametrize("protocol", ["1", "2"], ids=["v1", "v2"])
async def test_a_replay_shows_the_recorded_answers_and_suggestions(
    tmp_path: Path, protocol: Literal["1", "2"]
) -> None:
    path, suggested, answers = await record(tmp_path, protocol)
    async with session(tmp_path, f"replay:{path} --speed 4", protocol) as replay:
        assert replay.state.protocol_version == int(protocol)
        for prompt, expected in zip(PROMPTS, suggested, strict=True):
            await turn(replay, prompt)
            await eventually(
                lambda expected=expected: suggestion_texts(replay) == expected,  # type: ignore[misc]
                TURN_SECONDS,
                "the recorded suggestions",
            )
        assert agent_texts(replay) == answers
        assert not [i for i in replay.state.items if isinstance(i, NoticeItem)]


@pytest.mark.parametrize("protocol", ["1", "2"], ids=["v1", "v2"])
async def test_another_prompt_gets_a_notice_and_the_next_recorded_turn_then_the_end(
    tmp_path: Path, protocol: Literal["1", "2"]
) -> None:
    path, suggested, answers = await record(tmp_path, protocol)
    async with session(tmp_path, f"replay:{path}", protocol) as replay:
        await turn(replay, "something else entirely")
        said = "the recording asked “help”"
        if protocol == "2":
            notices = [i.notice.text for i in replay.state.items if isinstance(i, NoticeItem)]
            assert any(said in n and "something else entirely" in n for n in notices), notices
            assert agent_texts(replay) == answers[:1]
        else:
            notice, answer = agent_texts(replay)
            assert said in notice and answer == answers[0]
        await eventually(lambda: suggestion_texts(replay) == suggested[0], TURN_SECONDS, "suggestions")
        await turn(replay, PROMPTS[1])
        await eventually(lambda: suggestion_texts(replay) == suggested[1], TURN_SECONDS, "suggestions")
        await turn(replay, "one more")
        # The session checks that the agent replaced or withdrew its list once the turn's grace passed.
        grace = replay.current.turns._grace
        assert grace is not None
        await grace
        ended = "The recording has ended: its 2 turns were played"
        texts = [i.notice.text for i in replay.state.items if isinstance(i, NoticeItem)]
        texts += agent_texts(replay)
        assert any(ended in t for t in texts), texts
        # The list the last turn offered is withdrawn as the RFD asks of a turn that has no new one.
        assert replay.state.suggestions == ()
        assert not [t for t in texts if "neither replaced nor withdrew" in t], texts
