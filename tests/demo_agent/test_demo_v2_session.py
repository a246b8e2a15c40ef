"""ACP v2 over the wire: negotiation, the prompt lifecycle, sessions, config options, JSON-RPC batches."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.support.demo_agent import SHARES_AGENTS, running_agent
from tests.support.demo_agent_v2 import V2_NO_SUGGESTIONS, RpcFailure, V2Harness, running_v2_agent

pytestmark = SHARES_AGENTS

V2_INITIALIZE_RESULT = {
    "protocolVersion": 2,
    "info": {"name": "webclient-demo", "title": "webclient demo agent", "version": "0.1.0"},
    "capabilities": {"session": {"prompt": {"image": {}, "embeddedContext": {}}, "mcp": {}, "delete": {}}},
    "authMethods": [],
}


@pytest.mark.parametrize("asked", [2, 3])
async def test_initialize_with_version_2_or_later_answers_the_v2_shape(
    agent_v2: V2Harness, asked: int
) -> None:
    assert await agent_v2.initialize(version=asked) == V2_INITIALIZE_RESULT


async def test_initialize_with_version_1_still_answers_v1(workspace: Path, state_dir: Path) -> None:
    async with running_agent(workspace, state_dir) as agent:
        result = await agent.initialize({"session": {"promptSuggestions": {}}})

    assert result["protocolVersion"] == 1
    assert "agentCapabilities" in result and "capabilities" not in result


async def test_a_second_initialize_is_refused(agent_v2: V2Harness) -> None:
    await agent_v2.initialize()

    with pytest.raises(RpcFailure) as error:
        await agent_v2.request("initialize", {"protocolVersion": 2, "info": {"name": "x", "version": "0"}})
    assert error.value.code == -32600


async def test_new_session_offers_the_mode_as_a_config_option_and_tagged_commands(
    agent_v2: V2Harness,
) -> None:
    await agent_v2.initialize()
    result = await agent_v2.request("session/new", {"cwd": str(agent_v2.workspace), "mcpServers": []})

    mode, model, verbose = result["configOptions"]
    assert mode["configId"] == "mode" and mode["category"] == "mode" and mode["type"] == "select"
    assert mode["currentValue"] == "ask"
    assert [o["value"] for o in mode["options"]] == ["ask", "code", "architect"]
    assert (model["configId"], model["type"], model["currentValue"]) == ("model", "select", "fast")
    assert (verbose["configId"], verbose["type"], verbose["currentValue"]) == ("verbose", "boolean", False)
    assert all("id" not in option for option in result["configOptions"])
    update = (await agent_v2.wait_for(lambda: agent_v2.updates(kind="available_commands_update")))[0]
    show = next(c for c in update["availableCommands"] if c["name"] == "show")
    assert show["input"] == {"type": "text", "hint": "file path"}
    assert "input" not in next(c for c in update["availableCommands"] if c["name"] == "help")


async def test_a_turn_is_accepted_then_reported_by_updates_and_ends_idle(agent_v2: V2Harness) -> None:
    session = await agent_v2.start()
    since = agent_v2.mark()

    result = await agent_v2.prompt(session, "help")
    await agent_v2.wait_idle(session, since)

    assert result == {}
    first_update = agent_v2.index_of_update("user_message", since)
    assert agent_v2.index_of_response(agent_v2._next_id) < first_update, "accepted before anything else"
    kinds = agent_v2.kinds(session, since)
    kinds = kinds[: kinds.index("state:idle") + 1]  # the turn; its prediction may already follow it
    assert kinds[:3] == ["user_message", "state:running", "agent_thought_chunk"]
    assert kinds[-3:] == ["session_info_update", "usage_update", "state:idle"]
    assert set(kinds[3:-3]) == {"agent_message_chunk"} and len(kinds) > 7
    updates = agent_v2.updates(session, since=since)[: len(kinds)]
    assert updates[0]["content"] == [{"type": "text", "text": "help"}]
    assert updates[0]["messageId"]
    assert updates[-1] == {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}
    chunks = agent_v2.updates(session, "agent_message_chunk", since)
    assert len({c["messageId"] for c in chunks}) == 1, "all chunks of one answer share one messageId"
    assert chunks[0]["messageId"] not in (updates[0]["messageId"], updates[2]["messageId"])
    assert "list files" in agent_v2.message_text(session, since)


async def test_suggestions_follow_the_idle_when_the_client_advertised_them(agent_v2: V2Harness) -> None:
    session = await agent_v2.start()
    since = agent_v2.mark()

    await agent_v2.turn(session, "count to 3")
    offer = await agent_v2.wait_for_offer(session, since)

    assert offer == [
        {"prompt": [{"type": "text", "text": "Count to 6"}]},
        {"prompt": [{"type": "text", "text": "What can you do?"}]},
    ]
    assert agent_v2.index_of_update("prompt_suggestions_update", since) > agent_v2.index_of_update(
        "state_update", agent_v2.index_of_update("usage_update", since)
    ), "after the idle"
    # The next prompt is accepted by inserting its user message; the list is withdrawn right after it.
    since = agent_v2.mark()
    await agent_v2.turn(session, "count to 2")
    assert agent_v2.kinds(session, since)[:3] == [
        "user_message",
        "prompt_suggestions_update",
        "state:running",
    ]
    assert agent_v2.suggestion_lists(session, since)[0] == []


async def test_no_suggestions_without_the_capability(agent_v2: V2Harness) -> None:
    session = await agent_v2.start(V2_NO_SUGGESTIONS)

    await agent_v2.turn(session, "list files")
    await agent_v2.turn(session, "/suggest-demo short")

    await agent_v2.assert_stays_true(lambda: not agent_v2.suggestion_lists())
    assert "did not advertise" in agent_v2.message_text(session)


async def test_cancel_stops_the_turn_and_ends_it_idle_cancelled(agent_v2: V2Harness) -> None:
    session = await agent_v2.start()
    since = agent_v2.mark()
    assert await agent_v2.prompt(session, "count to 50") == {}  # 10 s if nobody cancels
    await agent_v2.wait_for(lambda: len(agent_v2.updates(session, "agent_message_chunk", since)) >= 2)

    await agent_v2.cancel(session)
    (idle,) = await agent_v2.wait_idle(session, since)

    assert idle["stopReason"] == "cancelled"
    numbers = agent_v2.message_text(session, since).split()
    assert numbers == [str(i) for i in range(1, len(numbers) + 1)] and len(numbers) < 20
    assert agent_v2.kinds(session, since)[-1] == "state:idle", "flushed before the idle"
    await agent_v2.assert_stays_true(lambda: not agent_v2.suggestion_lists(session, since))
    await agent_v2.turn(session, "count to 2")
    assert agent_v2.states(session, since, "idle")[-1]["stopReason"] == "end_turn"


async def test_a_prompt_sent_while_a_turn_runs_is_queued_and_inserted_after_its_idle(
    agent_v2: V2Harness,
) -> None:
    session = await agent_v2.start()
    since = agent_v2.mark()

    first, second = await asyncio.gather(
        agent_v2.prompt(session, "count to 3"), agent_v2.prompt(session, "count to 2")
    )
    await agent_v2.wait_idle(session, since, count=2)

    assert first == second == {}
    kinds = [k for k in agent_v2.kinds(session, since) if k.startswith(("user", "state"))]
    assert kinds == [
        "user_message", "state:running", "state:idle", "user_message", "state:running", "state:idle",
    ]  # fmt: skip
    users = agent_v2.updates(session, "user_message", since)
    assert [u["content"][0]["text"] for u in users] == ["count to 3", "count to 2"]
    assert users[0]["messageId"] != users[1]["messageId"]
    assert agent_v2.message_text(session, since) == "1\n2\n3\n1\n2\n"


async def test_cancel_also_drops_prompts_that_wait_in_the_queue(agent_v2: V2Harness) -> None:
    session = await agent_v2.start()
    since = agent_v2.mark()
    await agent_v2.prompt(session, "count to 50")
    await agent_v2.prompt(session, "count to 2")
    await agent_v2.wait_for(lambda: agent_v2.updates(session, "agent_message_chunk", since))

    await agent_v2.cancel(session)
    await agent_v2.wait_idle(session, since)

    await agent_v2.assert_stays_true(lambda: len(agent_v2.updates(session, "user_message", since)) == 1)
    assert [u.get("stopReason") for u in agent_v2.states(session, since, "idle")] == ["cancelled"]


async def test_resume_with_replay_sends_the_history_first_and_no_suggestions(
    workspace: Path, state_dir: Path
) -> None:
    async with running_v2_agent(workspace, state_dir) as first:
        session = await first.start()
        await first.turn(session, "list files")
        await first.wait_for_offer(session)
        await first.turn(session, "show README.md")
        stored = first.updates(session, "user_message")

    async with running_v2_agent(workspace, state_dir) as second:
        await second.initialize()
        params = {"sessionId": session, "cwd": str(workspace), "replayFrom": {"type": "start"}}
        result = await second.request("session/resume", params)

        assert [o["configId"] for o in result["configOptions"]] == ["mode", "model", "verbose"]
        replay = second.updates(session, until=second.index_of_response(1))
        assert [u["sessionUpdate"] for u in replay] == ["user_message", "agent_message"] * 2
        assert [u["messageId"] for u in replay[0::2]] == [u["messageId"] for u in stored]
        assert replay[0]["content"] == [{"type": "text", "text": "list files"}]
        assert "# Demo project" in replay[3]["content"][0]["text"]
        assert len({u["messageId"] for u in replay}) == 4
        await second.wait_for(lambda: second.updates(session, "available_commands_update"))
        await second.assert_stays_true(lambda: not second.suggestion_lists(session))
        since = second.mark()
        await second.turn(session, "count to 2")
        assert await second.wait_for_offer(session, since)


async def test_resume_without_replay_reattaches_silently(agent_v2: V2Harness) -> None:
    session = await agent_v2.start()
    await agent_v2.turn(session, "count to 2")
    await agent_v2.wait_for_offer(session)
    since = agent_v2.mark()

    result = await agent_v2.request("session/resume", {"sessionId": session, "cwd": str(agent_v2.workspace)})

    assert result["configOptions"][0]["currentValue"] == "ask"
    before_answer = agent_v2.updates(
        session, since=since, until=agent_v2.index_of_response(agent_v2._next_id)
    )
    assert before_answer == []
    await agent_v2.turn(session, "count to 1")
    assert agent_v2.message_text(session, since) == "1\n"


async def test_list_close_and_delete(workspace: Path, state_dir: Path, tmp_path: Path) -> None:
    # An agent of its own: listing every session must not find other tests' sessions.
    async with running_v2_agent(workspace, state_dir) as agent_v2:
        session = await agent_v2.start()
        await agent_v2.turn(session, "count to 2")
        other = tmp_path / "other"
        other.mkdir()
        elsewhere = await agent_v2.new_session(other)
        await agent_v2.turn(elsewhere, "count to 1")
        unused = await agent_v2.new_session()  # never prompted: never stored, never listed

        listed = await agent_v2.request("session/list", {"cwd": str(agent_v2.workspace)})
        assert [(s["sessionId"], s["title"], s["cwd"]) for s in listed["sessions"]] == [
            (session, "count to 2", str(agent_v2.workspace))
        ]
        assert "updatedAt" in listed["sessions"][0]

        assert await agent_v2.request("session/close", {"sessionId": session}) == {}
        with pytest.raises(RpcFailure) as closed:
            await agent_v2.prompt(session, "help")
        assert closed.value.code == -32602
        await agent_v2.request("session/resume", {"sessionId": session, "cwd": str(agent_v2.workspace)})
        await agent_v2.turn(session, "count to 1")

        assert await agent_v2.request("session/delete", {"sessionId": session}) == {}
        everything = await agent_v2.request("session/list", {})
        assert [s["sessionId"] for s in everything["sessions"]] == [elsewhere]
        assert unused not in [s["sessionId"] for s in everything["sessions"]]
        with pytest.raises(RpcFailure) as deleted:
            await agent_v2.request("session/resume", {"sessionId": session, "cwd": str(agent_v2.workspace)})
        assert deleted.value.code == -32602


async def test_closing_a_session_mid_turn_cancels_it_first(agent_v2: V2Harness) -> None:
    session = await agent_v2.start()
    since = agent_v2.mark()
    await agent_v2.prompt(session, "count to 50")
    await agent_v2.wait_for(lambda: agent_v2.updates(session, "agent_message_chunk", since))

    assert await agent_v2.request("session/close", {"sessionId": session}) == {}

    assert agent_v2.states(session, since, "idle")[-1]["stopReason"] == "cancelled"


@pytest.mark.parametrize(
    ("params", "current"),
    [
        ({"configId": "mode", "type": "id", "value": "code"}, ("code", "fast", False)),
        ({"configId": "model", "type": "id", "value": "thorough"}, ("ask", "thorough", False)),
        ({"configId": "verbose", "type": "boolean", "value": True}, ("ask", "fast", True)),
    ],
)  # fmt: skip
async def test_set_config_option_takes_a_typed_value_and_answers_the_full_list(
    agent_v2: V2Harness, params: dict[str, Any], current: tuple[str, str, bool]
) -> None:
    session = await agent_v2.start()
    since = agent_v2.mark()

    result = await agent_v2.request("session/set_config_option", {"sessionId": session, **params})

    values = {o["configId"]: o["currentValue"] for o in result["configOptions"]}
    assert values == dict(zip(("mode", "model", "verbose"), current, strict=True))
    (update,) = agent_v2.updates(session, "config_option_update", since)
    assert update["configOptions"] == result["configOptions"]


@pytest.mark.parametrize(
    "params",
    [
        {"configId": "mode", "value": "code"},
        {"configId": "mode", "type": "boolean", "value": True},
        {"configId": "verbose", "type": "id", "value": "yes"},
        {"configId": "mode", "type": "id", "value": "nonsense"},
        {"configId": "nonsense", "type": "id", "value": "x"},
    ],
)
async def test_untyped_or_invalid_config_values_are_invalid_params(
    agent_v2: V2Harness, params: dict[str, Any]
) -> None:
    session = await agent_v2.start()

    with pytest.raises(RpcFailure) as error:
        await agent_v2.request("session/set_config_option", {"sessionId": session, **params})

    assert error.value.code == -32602


async def test_slash_mode_switches_the_mode_config_option(agent_v2: V2Harness) -> None:
    session = await agent_v2.start()
    since = agent_v2.mark()

    await agent_v2.turn(session, "/mode architect")

    (update,) = agent_v2.updates(session, "config_option_update", since)
    assert update["configOptions"][0]["configId"] == "mode"
    assert update["configOptions"][0]["currentValue"] == "architect"
    assert "current_mode_update" not in agent_v2.kinds(session, since)


async def test_a_batch_is_answered_with_one_array_and_notifications_get_nothing(agent_v2: V2Harness) -> None:
    session = await agent_v2.start()
    await agent_v2.turn(session, "count to 1")  # a session is listed once it was used
    lines = len(agent_v2.lines)
    cwd = str(agent_v2.workspace)

    await agent_v2.send_line(
        [
            {"jsonrpc": "2.0", "id": 40, "method": "session/list", "params": {"cwd": cwd}},
            {"jsonrpc": "2.0", "method": "_tests/unknown_notification", "params": {}},
            {"jsonrpc": "2.0", "id": "forty-one", "method": "_tests/unknown", "params": {}},
            {"jsonrpc": "2.0", "id": 42, "method": "session/set_config_option",
             "params": {"sessionId": session, "configId": "model", "type": "id", "value": "thorough"}},
            "not a request",
        ]
    )  # fmt: skip
    await agent_v2.send_line([{"jsonrpc": "2.0", "method": "_tests/only_notifications"}])
    await agent_v2.send_line([])

    batch = await agent_v2.wait_for(
        lambda: [line for line in agent_v2.lines[lines:] if isinstance(line, list)]
    )
    empty = await agent_v2.wait_for(
        lambda: [
            m for m in agent_v2.lines[lines:] if isinstance(m, dict) and m.get("id") is None and "error" in m
        ]
    )
    (answers,) = batch
    by_id = {answer["id"]: answer for answer in answers}
    assert set(by_id) == {40, "forty-one", 42, None}
    assert [s["sessionId"] for s in by_id[40]["result"]["sessions"]] == [session]
    assert by_id["forty-one"]["error"]["code"] == -32601
    assert by_id[42]["result"]["configOptions"][1]["currentValue"] == "thorough"
    assert by_id[None]["error"]["code"] == -32600
    assert empty[0]["error"]["code"] == -32600
    await agent_v2.assert_stays_true(
        lambda: len([x for x in agent_v2.lines[lines:] if isinstance(x, list)]) == 1
    )


async def test_an_unknown_method_is_method_not_found(agent_v2: V2Harness) -> None:
    await agent_v2.initialize()

    with pytest.raises(RpcFailure) as error:
        await agent_v2.request("session/load", {"sessionId": "sess_x", "cwd": "/", "mcpServers": []})

    assert error.value.code == -32601


async def test_closing_stdin_mid_turn_ends_the_v2_agent_cleanly(workspace: Path, state_dir: Path) -> None:
    async with running_v2_agent(workspace, state_dir) as agent:
        session = await agent.start()
        await agent.prompt(session, "count to 100")
        await agent.wait_for(lambda: agent.updates(session, "agent_message_chunk"))

    assert agent.process.returncode == 0, agent.stderr.decode()
