"""session/cancel stops a running turn promptly; the session carries on."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from tests.support.demo_agent import SHARES_AGENTS, SUGGESTIONS, AgentHarness, running_agent

pytestmark = SHARES_AGENTS


async def test_cancel_stops_a_slow_turn_promptly_with_stop_reason_cancelled(agent: AgentHarness) -> None:
    await agent.initialize(SUGGESTIONS)
    session = await agent.new_session()
    turn = asyncio.create_task(agent.prompt(session, "count to 50"))  # 10 s if nobody cancels
    await agent.wait_for(lambda: len(agent.updates(session, "agent_message_chunk")) >= 2)

    cancelled_at = time.monotonic()
    await agent.cancel(session)
    result = await asyncio.wait_for(turn, timeout=5)

    assert result == {"stopReason": "cancelled"}
    assert time.monotonic() - cancelled_at < 1.0
    numbers = agent.message_text(session).split()
    assert numbers == [str(i) for i in range(1, len(numbers) + 1)]
    assert len(numbers) < 10
    await agent.assert_stays_true(lambda: agent.message_text(session).split() == numbers)
    assert not agent.suggestion_lists(session), "no prediction after a cancelled turn"


async def test_the_session_answers_normally_after_a_cancelled_turn(agent: AgentHarness) -> None:
    await agent.initialize(SUGGESTIONS)
    session = await agent.new_session()
    turn = asyncio.create_task(agent.prompt(session, "slow"))
    await agent.wait_for(lambda: agent.updates(session, "agent_message_chunk"))
    await agent.cancel(session)
    assert await turn == {"stopReason": "cancelled"}
    since = agent.mark()

    result = await agent.prompt(session, "count to 2")

    assert result == {"stopReason": "end_turn"}
    assert agent.message_text(session, since) == "1\n2\n"


async def test_closing_stdin_mid_turn_ends_the_agent_cleanly(workspace: Path, state_dir: Path) -> None:
    async with running_agent(workspace, state_dir) as agent:
        await agent.initialize(SUGGESTIONS)
        session = await agent.new_session()
        turn = asyncio.create_task(agent.prompt(session, "count to 100"))
        await agent.wait_for(lambda: agent.updates(session, "agent_message_chunk"))
    # Leaving the block closes stdin, waits 2 s, then terminates: exit code 0 means the agent left by itself.

    assert agent.process.returncode == 0, agent.stderr.decode()
    with pytest.raises(ConnectionError):
        await turn
