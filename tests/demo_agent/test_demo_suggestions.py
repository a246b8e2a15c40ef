"""The reference Agent's prompt-suggestion rules (RFD), observed on the wire."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.demo_agent import (
    NO_SUGGESTIONS,
    SHARES_AGENTS,
    SUGGESTIONS,
    SUGGESTIONS_WITH_IMAGES,
    AgentHarness,
)

pytestmark = SHARES_AGENTS


def block_types(lists: list[Any]) -> set[str]:
    return {block["type"] for entries in lists for entry in entries for block in entry["prompt"]}


def show_me(workspace: Path, name: str) -> dict[str, Any]:
    link = {"type": "resource_link", "name": name, "uri": (workspace / name).as_uri()}
    return {"prompt": [{"type": "text", "text": "Show me "}, link]}


def texts(entries: list[Any]) -> list[str]:
    return ["".join(b.get("text", "") for b in entry["prompt"]) for entry in entries]


async def test_a_prediction_follows_the_prompt_response_when_the_client_advertises_support(
    agent: AgentHarness,
) -> None:
    await agent.initialize(SUGGESTIONS)
    session = await agent.new_session()
    since = agent.mark()

    await agent.prompt(session, "list files")
    (suggestions,) = await agent.wait_for_suggestions(session, since)

    update_at = agent.index_of_update("prompt_suggestions_update")
    assert update_at > agent.index_of_response(2), "the prediction goes out after the turn's response"
    assert suggestions == [show_me(agent.workspace, "README.md"), show_me(agent.workspace, "notes.txt")]


async def test_predictions_follow_the_conversation(agent: AgentHarness) -> None:
    await agent.initialize(SUGGESTIONS)
    session = await agent.new_session()
    app = agent.workspace / "src" / "app.py"

    since = agent.mark()
    await agent.prompt(session, "show src/app.py")
    after_show = (await agent.wait_for_suggestions(session, since))[-1]
    since = agent.mark()
    await agent.prompt(session, "explain src/app.py")
    after_explain = (await agent.wait_for_suggestions(session, since, count=2))[-1]

    link = {"type": "resource_link", "name": "src/app.py", "uri": app.as_uri()}
    assert after_show[0] == {"prompt": [{"type": "text", "text": "Explain "}, link]}
    assert after_explain[0] == show_me(agent.workspace, "src/app.py")
    assert texts(after_show)[1] == "List files in src"


async def test_a_selected_suggestion_sent_back_as_the_prompt_does_what_it_says(agent: AgentHarness) -> None:
    await agent.initialize(SUGGESTIONS)
    session = await agent.new_session()
    since = agent.mark()
    await agent.prompt(session, "ls")
    first = (await agent.wait_for_suggestions(session, since))[-1][0]

    since = agent.mark()
    await agent.prompt(session, *first["prompt"])

    assert "```markdown\n# Demo project" in agent.message_text(session, since)


@pytest.mark.parametrize(
    "capabilities",
    [
        None,
        NO_SUGGESTIONS,
        {"session": None},
        {"session": {}},
        {"session": {"promptSuggestions": None}},
        {"session": {"promptSuggestions": True}},
        {"_meta": {"promptSuggestions": {}}},
    ],
    ids=["capabilities-null", "no-session", "session-null", "session-empty", "null", "not-an-object", "meta"],
)
async def test_no_suggestions_are_ever_sent_without_the_capability(
    agent: AgentHarness, capabilities: Any
) -> None:
    await agent.initialize(capabilities, omit_capabilities=capabilities is None)
    session = await agent.new_session()

    for prompt in ("list files", "help", "/suggest-demo many", '/suggest [{"prompt": []}]'):
        assert await agent.prompt(session, prompt) == {"stopReason": "end_turn"}

    await agent.assert_stays_true(lambda: not agent.suggestion_lists())
    assert "did not advertise" in agent.message_text(session)


async def test_a_new_prompt_withdraws_a_non_empty_list_before_anything_else_in_its_turn(
    agent: AgentHarness,
) -> None:
    await agent.initialize(SUGGESTIONS)
    session = await agent.new_session()
    await agent.prompt(session, "list files")
    await agent.wait_for_suggestions(session)
    since = agent.mark()

    await agent.prompt(session, "help")

    turn = agent.updates(session, since=since, until=agent.index_of_response(3))
    assert turn[0] == {"sessionUpdate": "prompt_suggestions_update", "suggestions": []}
    assert turn[1]["sessionUpdate"] == "agent_thought_chunk"
    assert [u["sessionUpdate"] for u in turn].count("prompt_suggestions_update") == 1


async def test_no_withdrawal_is_sent_when_nothing_is_offered(agent: AgentHarness) -> None:
    await agent.initialize(SUGGESTIONS)
    session = await agent.new_session()
    await agent.prompt(session, "/suggest-demo withdraw")
    await agent.wait_for_suggestions(session)
    since = agent.mark()

    await agent.prompt(session, "help")

    turn = agent.updates(session, since=since, until=agent.index_of_response(3))
    assert turn[0]["sessionUpdate"] == "agent_thought_chunk"
    assert "prompt_suggestions_update" not in [u["sessionUpdate"] for u in turn]


async def test_a_delayed_prediction_arrives_after_the_delay(agent: AgentHarness) -> None:
    await agent.initialize(SUGGESTIONS)
    session = await agent.new_session()
    await agent.prompt(session, "/suggest-delay 400")
    since = agent.mark()

    await agent.prompt(session, "help")
    answered = time.monotonic()
    (suggestions,) = await agent.wait_for_suggestions(session, since)

    assert time.monotonic() - answered >= 0.35
    assert "Count to 5" in texts(suggestions)


async def test_a_delayed_prediction_is_discarded_when_a_prompt_arrives_meanwhile(agent: AgentHarness) -> None:
    await agent.initialize(SUGGESTIONS)
    session = await agent.new_session()
    # The delay leaves a loaded machine ample time to deliver the next prompt before the prediction is due.
    await agent.prompt(session, "/suggest-delay 2000")
    since = agent.mark()

    await agent.prompt(session, "help")  # its prediction is due 2 s after this response
    help_answered = time.monotonic()
    await agent.prompt(session, "list files")
    lists = await agent.wait_for_suggestions(session, since)
    remaining = 2.0 + 0.3 - (time.monotonic() - help_answered)
    await agent.assert_stays_true(lambda: agent.suggestion_lists(session, since) == lists, period=remaining)

    assert len(lists) == 1, "only the listing's prediction; nothing offered to withdraw"
    assert texts(lists[0]) == ["Show me ", "Show me "]


async def test_an_image_suggestion_is_offered_when_both_sides_allow_images(agent: AgentHarness) -> None:
    await agent.initialize(SUGGESTIONS_WITH_IMAGES)
    session = await agent.new_session()

    await agent.prompt(session, "help")
    lists = await agent.wait_for_suggestions(session)

    assert "image" in block_types(lists)
    image = next(b for entry in lists[0] for b in entry["prompt"] if b["type"] == "image")
    assert image["mimeType"] == "image/png"


@pytest.mark.parametrize(
    "prompt_suggestions",
    [{}, {"image": None}, {"audio": {}, "embeddedContext": {}}, {"image": True}],
    ids=["baseline", "image-null", "other-types", "image-not-an-object"],
)
async def test_no_image_suggestion_unless_the_client_advertises_images(
    agent: AgentHarness, prompt_suggestions: dict[str, Any]
) -> None:
    await agent.initialize({"session": {"promptSuggestions": prompt_suggestions}})
    session = await agent.new_session()

    await agent.prompt(session, "help")
    lists = await agent.wait_for_suggestions(session)

    assert block_types(lists) == {"text", "resource_link"}


async def test_predictions_never_contain_blank_suggestions(agent: AgentHarness) -> None:
    await agent.initialize(SUGGESTIONS_WITH_IMAGES)
    session = await agent.new_session()

    for prompt in ("help", "ls", "ls src", "show README.md", "explain README.md", "count to 1", "show nope"):
        since = agent.mark()
        await agent.prompt(session, prompt)
        await agent.wait_for_offer(session, since)

    for entries in agent.suggestion_lists(session):
        for entry in entries:
            assert entry["prompt"]
            assert any(b["type"] != "text" or b["text"].strip() for b in entry["prompt"])
