"""Modes, config options, session info and usage; and every ACP v1 update variant, seen on the wire."""

from __future__ import annotations

from typing import Any

import pytest
from acp.exceptions import RequestError

from tests.support.demo_agent import FULL_CLIENT, SHARES_AGENTS, SUGGESTIONS, AgentHarness

pytestmark = SHARES_AGENTS

V1_UPDATE_KINDS = frozenset(
    {
        "user_message_chunk",
        "agent_message_chunk",
        "agent_thought_chunk",
        "tool_call",
        "tool_call_update",
        "plan",
        "available_commands_update",
        "current_mode_update",
        "config_option_update",
        "session_info_update",
        "usage_update",
    }
)


async def new_session_result(agent: AgentHarness, capabilities: object = FULL_CLIENT) -> dict[str, Any]:
    await agent.initialize(capabilities)
    result: dict[str, Any] = await agent.conn.send_request(
        "session/new", {"cwd": str(agent.workspace), "mcpServers": []}
    )
    return result


async def test_new_session_offers_three_modes_starting_in_ask(agent: AgentHarness) -> None:
    result = await new_session_result(agent)

    modes = result["modes"]
    assert isinstance(modes, dict)
    assert modes["currentModeId"] == "ask"
    assert [m["id"] for m in modes["availableModes"]] == ["ask", "code", "architect"]
    assert all(m["name"] and m["description"] for m in modes["availableModes"])


async def test_config_options_include_the_boolean_only_for_clients_that_advertise_it(
    agent: AgentHarness,
) -> None:
    result = await new_session_result(agent)

    model, verbose = result["configOptions"]
    assert model["type"] == "select" and model["id"] == "model" and model["currentValue"] == "fast"
    assert [o["value"] for o in model["options"]] == ["fast", "thorough"]
    assert verbose == {
        "type": "boolean",
        "id": "verbose",
        "name": "Verbose tools",
        "description": "Add more detail to tool output",
        "currentValue": False,
    }


async def test_a_client_without_boolean_support_gets_only_the_select(agent: AgentHarness) -> None:
    result = await new_session_result(agent, SUGGESTIONS)

    assert [o["id"] for o in result["configOptions"]] == ["model"]


async def test_set_mode_switches_and_sends_current_mode_update(agent: AgentHarness) -> None:
    await agent.initialize(FULL_CLIENT)
    session = await agent.new_session()
    since = agent.mark()

    result = await agent.conn.send_request("session/set_mode", {"sessionId": session, "modeId": "architect"})

    assert result == {}
    assert agent.updates(session, "current_mode_update", since) == [
        {"sessionUpdate": "current_mode_update", "currentModeId": "architect"}
    ]


async def test_set_mode_to_an_unknown_mode_is_invalid_params(agent: AgentHarness) -> None:
    await agent.initialize(FULL_CLIENT)
    session = await agent.new_session()

    with pytest.raises(RequestError) as error:
        await agent.conn.send_request("session/set_mode", {"sessionId": session, "modeId": "yolo"})

    assert error.value.code == -32602


async def test_the_agent_switches_mode_itself_on_slash_mode(agent: AgentHarness) -> None:
    await agent.initialize(FULL_CLIENT)
    session = await agent.new_session()
    since = agent.mark()

    await agent.prompt(session, "/mode code")

    (update,) = agent.updates(session, "current_mode_update", since)
    assert update["currentModeId"] == "code"
    assert "Code" in agent.message_text(session, since)


async def test_set_config_option_answers_the_full_list_and_sends_config_option_update(
    agent: AgentHarness,
) -> None:
    await agent.initialize(FULL_CLIENT)
    session = await agent.new_session()
    since = agent.mark()

    result = await agent.conn.send_request(
        "session/set_config_option", {"sessionId": session, "configId": "model", "value": "thorough"}
    )

    assert [(o["id"], o["currentValue"]) for o in result["configOptions"]] == [
        ("model", "thorough"),
        ("verbose", False),
    ]
    (update,) = agent.updates(session, "config_option_update", since)
    assert update["configOptions"] == result["configOptions"]


async def test_set_a_boolean_config_option(agent: AgentHarness) -> None:
    await agent.initialize(FULL_CLIENT)
    session = await agent.new_session()

    result = await agent.conn.send_request(
        "session/set_config_option",
        {"sessionId": session, "configId": "verbose", "type": "boolean", "value": True},
    )

    assert result["configOptions"][1]["currentValue"] is True


@pytest.mark.parametrize(
    "params",
    [
        {"configId": "model", "value": "gigantic"},
        {"configId": "nope", "value": "fast"},
        {"configId": "verbose", "type": "boolean", "value": True},  # not advertised by this client
    ],
)
async def test_invalid_config_values_are_invalid_params(
    agent: AgentHarness, params: dict[str, object]
) -> None:
    await agent.initialize(SUGGESTIONS)
    session = await agent.new_session()

    with pytest.raises(RequestError) as error:
        await agent.conn.send_request("session/set_config_option", {"sessionId": session, **params})

    assert error.value.code == -32602


async def test_first_turn_names_the_session_and_every_turn_reports_usage(agent: AgentHarness) -> None:
    await agent.initialize(FULL_CLIENT)
    session = await agent.new_session()

    await agent.prompt(session, "count to 2")
    after_first = agent.mark()
    await agent.prompt(session, "list files")

    (info,) = agent.updates(session, "session_info_update")
    assert info["title"] == "count to 2"
    assert info["updatedAt"]
    first, second = agent.updates(session, "usage_update")
    assert first["size"] == second["size"] == 200_000
    assert 0 < first["used"] < second["used"]
    assert first["cost"]["currency"] == "USD"
    assert 0 < first["cost"]["amount"] < second["cost"]["amount"]
    assert agent.index_of_update("usage_update", after_first) < agent.index_of_response(3)


async def test_the_thorough_model_costs_more(agent: AgentHarness) -> None:
    await agent.initialize(FULL_CLIENT)
    cheap = await agent.new_session()
    dear = await agent.new_session()
    await agent.conn.send_request(
        "session/set_config_option", {"sessionId": dear, "configId": "model", "value": "thorough"}
    )

    await agent.prompt(cheap, "count to 2")
    await agent.prompt(dear, "count to 2")

    (cheap_usage,) = agent.updates(cheap, "usage_update")
    (dear_usage,) = agent.updates(dear, "usage_update")
    assert cheap_usage["used"] == dear_usage["used"]
    assert dear_usage["cost"]["amount"] == pytest.approx(5 * cheap_usage["cost"]["amount"])


async def test_every_v1_update_variant_and_agent_request_appears_across_the_scenarios(
    agent: AgentHarness,
) -> None:
    await agent.initialize(FULL_CLIENT)
    session = await agent.new_session()
    for prompt in ("help", "edit README.md", "run tests", "search Usage", "/mode architect"):
        assert await agent.prompt(session, prompt) == {"stopReason": "end_turn"}
    await agent.conn.send_request(
        "session/set_config_option", {"sessionId": session, "configId": "model", "value": "thorough"}
    )
    await agent.load_session(session)  # the replay carries user_message_chunk

    kinds = {u["sessionUpdate"] for u in agent.updates(session)}
    assert kinds >= V1_UPDATE_KINDS
    assert kinds - V1_UPDATE_KINDS <= {"prompt_suggestions_update"}
    methods = {m["method"] for m in agent.requests()}
    assert methods == {"fs/read_text_file", "fs/write_text_file", "session/request_permission"}
