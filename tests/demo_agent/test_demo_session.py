"""Session lifecycle over the wire: initialize, new, prompt, load (across restarts), list."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp.exceptions import RequestError

from tests.support.demo_agent import SHARES_AGENTS, SUGGESTIONS, AgentHarness, running_agent

pytestmark = SHARES_AGENTS


async def test_initialize_advertises_v1_load_session_and_prompt_capabilities(agent: AgentHarness) -> None:
    result = await agent.initialize(SUGGESTIONS)

    assert result["protocolVersion"] == 1
    assert result["agentInfo"] == {
        "name": "webclient-demo",
        "title": "webclient demo agent",
        "version": "0.1.0",
    }
    capabilities = result["agentCapabilities"]
    assert capabilities["loadSession"] is True
    assert capabilities["promptCapabilities"] == {"image": True, "audio": False, "embeddedContext": True}
    assert capabilities["sessionCapabilities"] == {"list": {}}, "no resume: the SDK routes it as unstable"
    assert result["authMethods"] == []


async def test_prompt_streams_a_thought_then_message_chunks_and_ends_the_turn(agent: AgentHarness) -> None:
    await agent.initialize(SUGGESTIONS)
    session = await agent.new_session()
    since = agent.mark()

    result = await agent.prompt(session, "help")

    assert result == {"stopReason": "end_turn"}
    kinds = [u["sessionUpdate"] for u in agent.updates(session, since=since)]
    assert kinds[0] == "agent_thought_chunk"
    assert kinds.count("agent_thought_chunk") == 1
    assert kinds[-2:] == ["session_info_update", "usage_update"], "the turn ends with its title and usage"
    assert kinds[1:-2] == ["agent_message_chunk"] * (len(kinds) - 3)
    assert len(kinds) > 3, "the answer streams in several chunks"
    chunks = [u["content"]["text"] for u in agent.updates(session, "agent_message_chunk", since)]
    assert all(len(chunk) <= 40 for chunk in chunks)
    assert "list files" in "".join(chunks)
    message_ids = {u["messageId"] for u in agent.updates(session, "agent_message_chunk", since)}
    assert len(message_ids) == 1, "all chunks of one answer share one messageId"


async def test_new_session_advertises_the_slash_commands_after_its_response(agent: AgentHarness) -> None:
    await agent.initialize(SUGGESTIONS)
    session = await agent.new_session()

    update = (await agent.wait_for(lambda: agent.updates(session, "available_commands_update")))[0]

    names = [command["name"] for command in update["availableCommands"]]
    assert names == [
        "help", "ls", "show", "explain", "edit", "run", "search", "mode", "slow", "suggest", "suggest-demo",
        "suggest-delay",
    ]  # fmt: skip
    assert all(command["description"] for command in update["availableCommands"])
    position = next(i for i, m in enumerate(agent.received) if m.get("method") == "session/update")
    assert position > agent.index_of_response(1), "sent once the client knows the session id"


async def test_prompt_to_an_unknown_session_is_an_invalid_params_error(agent: AgentHarness) -> None:
    await agent.initialize(SUGGESTIONS)

    with pytest.raises(RequestError) as error:
        await agent.prompt("sess_" + "0" * 32, "help")

    assert error.value.code == -32602


async def test_load_replays_history_across_restarts_and_offers_no_suggestions(
    workspace: Path, state_dir: Path
) -> None:
    async with running_agent(workspace, state_dir) as first:
        await first.initialize(SUGGESTIONS)
        session = await first.new_session()
        await first.prompt(session, "list files")
        await first.wait_for_suggestions(session)  # the first run did offer suggestions
        await first.prompt(session, "show README.md")

    async with running_agent(workspace, state_dir) as second:
        await second.initialize(SUGGESTIONS)
        result = await second.load_session(session)

        assert result["modes"]["currentModeId"] == "ask"
        assert [o["id"] for o in result["configOptions"]] == ["model"]
        replay = second.updates(session, until=second.index_of_response(1))
        kinds = [u["sessionUpdate"] for u in replay]
        assert kinds == [
            "user_message_chunk",
            "agent_message_chunk",
            "user_message_chunk",
            "agent_message_chunk",
        ]
        assert [u["content"]["text"] for u in replay[0::2]] == ["list files", "show README.md"]
        assert "`README.md`" in replay[1]["content"]["text"]
        assert "# Demo project" in replay[3]["content"]["text"]
        await second.wait_for(lambda: second.updates(session, "available_commands_update"))
        await second.assert_stays_true(lambda: not second.suggestion_lists(session))


async def test_list_sessions_returns_stored_sessions_for_the_cwd(agent: AgentHarness, tmp_path: Path) -> None:
    await agent.initialize(SUGGESTIONS)
    first = await agent.new_session()
    await agent.prompt(first, "count to 2")
    other = tmp_path / "other"
    other.mkdir()
    await agent.new_session(other)

    result = await agent.conn.send_request("session/list", {"cwd": str(agent.workspace)})

    assert [s["sessionId"] for s in result["sessions"]] == [first]
    assert result["sessions"][0]["title"] == "count to 2"
    assert result["sessions"][0]["cwd"] == str(agent.workspace)


async def test_a_session_nobody_prompted_is_never_stored_or_listed(workspace: Path, state_dir: Path) -> None:
    async with running_agent(workspace, state_dir) as demo:
        await demo.initialize(SUGGESTIONS)
        unused = await demo.new_session()
        used = await demo.new_session()
        await demo.prompt(used, "count to 1")

        result = await demo.conn.send_request("session/list", {"cwd": str(demo.workspace)})

        assert [s["sessionId"] for s in result["sessions"]] == [used]
        assert [p.stem for p in state_dir.rglob("sess_*.json")] == [used]
        with pytest.raises(RequestError):
            await demo.load_session(unused)
