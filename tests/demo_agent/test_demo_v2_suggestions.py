"""Prompt suggestions on a v2 connection: the RFD's capability, content-type and lifetime rules."""

from __future__ import annotations

from typing import Any

from tests.support.demo_agent import SHARES_AGENTS
from tests.support.demo_agent_v2 import V2Harness

pytestmark = SHARES_AGENTS

IMAGES: dict[str, Any] = {"session": {"promptSuggestions": {"image": {}}}}


async def test_an_image_suggestion_needs_both_sides_to_allow_images(agent_v2: V2Harness) -> None:
    session = await agent_v2.start(IMAGES)

    await agent_v2.turn(session, "help")
    offer = await agent_v2.wait_for_offer(session)

    assert [block["type"] for block in offer[-1]["prompt"]] == ["text", "image"]


async def test_no_image_suggestion_unless_the_client_advertises_images(agent_v2: V2Harness) -> None:
    session = await agent_v2.start()

    await agent_v2.turn(session, "help")
    offer = await agent_v2.wait_for_offer(session)

    assert all(block["type"] in ("text", "resource_link") for entry in offer for block in entry["prompt"])


async def test_a_scenario_preset_is_sent_after_the_idle(agent_v2: V2Harness) -> None:
    session = await agent_v2.start()
    since = agent_v2.mark()

    await agent_v2.turn(session, "/suggest-demo short")
    offer = await agent_v2.wait_for_offer(session, since)

    assert [entry["prompt"][0]["text"] for entry in offer] == [
        "List files", "What can you do?", "Count to 5", "Show me README.md",
    ]  # fmt: skip


async def test_a_pending_prediction_is_dropped_when_a_prompt_arrives(agent_v2: V2Harness) -> None:
    session = await agent_v2.start()
    await agent_v2.turn(session, "/suggest-delay 1500")
    since = agent_v2.mark()

    await agent_v2.turn(session, "count to 2")  # its prediction would go out 1.5 s after its idle
    await agent_v2.prompt(session, "count to 1")  # ...but this prompt arrives first
    await agent_v2.wait_idle(session, since, count=2)

    offer = await agent_v2.wait_for_offer(session, since)  # the second turn's own prediction

    assert offer == [
        {"prompt": [{"type": "text", "text": "Count to 5"}]},
        {"prompt": [{"type": "text", "text": "What can you do?"}]},
    ]
    await agent_v2.assert_stays_true(lambda: agent_v2.suggestion_lists(session, since) == [offer], period=2.0)
