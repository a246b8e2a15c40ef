"""The replay's player on its own: a later list of the last turn never lands in the next turn, and cancel
ends a turn where it is, as each ACP version ends one."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.support.polling import eventually
from webclient.replay_agent.player import Player
from webclient.replay_agent.recording import Recording, Step, Turn

pytestmark = pytest.mark.asyncio

LATE = {
    "sessionUpdate": "prompt_suggestions_update",
    "suggestions": [{"prompt": [{"type": "text", "text": "late"}]}],
}


def recording(version: int, steps: tuple[Step, ...], then: tuple[Step, ...] = ()) -> Recording:
    turns = (Turn("hello", steps), Turn("hello", then or steps))
    return Recording(version, {"protocolVersion": version}, {"sessionId": "rec"}, "rec", (), turns)


def update(body: dict[str, Any], delay: float) -> Step:
    return Step("notify", delay, method="session/update", params={"sessionId": "rec", "update": body})


async def opened(player: Player, sent: list[dict[str, Any]]) -> str:
    await player.handle({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {}})
    return str(sent[-1]["result"]["sessionId"])


def prompt(request_id: int, session: str) -> dict[str, Any]:
    params = {"sessionId": session, "prompt": [{"type": "text", "text": "hello"}]}
    return {"jsonrpc": "2.0", "id": request_id, "method": "session/prompt", "params": params}


async def test_the_next_prompt_drops_what_the_last_turn_had_still_to_send() -> None:
    sent: list[dict[str, Any]] = []
    steps = (Step("answer", 0, result={"stopReason": "end_turn"}), update(LATE, 200))
    # The next turn answers long after the last one's list was due: it would have come in between.
    then = (Step("answer", 1500, result={"stopReason": "end_turn"}),)
    player = Player(recording(1, steps, then), sent.append)
    session = await opened(player, sent)
    await player.handle(prompt(2, session))
    await eventually(lambda: any(m.get("id") == 2 for m in sent), 5, "the first answer")
    await player.handle(prompt(3, session))
    await eventually(lambda: any(m.get("id") == 3 for m in sent), 5, "the second answer")
    await player.close()
    assert not any("late" in str(m) for m in sent)


@pytest.mark.parametrize("version", [1, 2])
async def test_cancel_ends_the_turn_as_the_version_ends_one(version: int) -> None:
    sent: list[dict[str, Any]] = []
    steps = (
        update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}}, 60_000),
        Step("answer", 60_000, result={"stopReason": "end_turn"}),
    )
    player = Player(recording(version, steps), sent.append)
    session = await opened(player, sent)
    await player.handle(prompt(2, session))
    await asyncio.sleep(0)
    await player.handle({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}})
    await eventually(lambda: any(m.get("id") == 2 for m in sent), 5, "the answer")
    [answer] = [m for m in sent if m.get("id") == 2]
    if version == 1:
        assert answer["result"] == {"stopReason": "cancelled"}
    else:
        assert answer["result"] == {}
        await eventually(lambda: "'stopReason': 'cancelled'" in str(sent[-1]), 5, "the idle state")
    await player.close()
