"""Tool turns over the wire: edit (plan, read, diff, permission, write), run, search; in wire order."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.support.demo_agent import (
    FULL_CLIENT,
    ORIGINAL_APP,
    REVIEW_LINE,
    SHARES_AGENTS,
    SUGGESTIONS,
    AgentHarness,
)

pytestmark = SHARES_AGENTS


async def start(agent: AgentHarness, capabilities: Any = FULL_CLIENT) -> str:
    await agent.initialize(capabilities)
    return await agent.new_session()


def tool_updates(agent: AgentHarness, session: str, since: int, tool_id: str) -> list[dict[str, Any]]:
    return [
        u
        for u in agent.updates(session, since=since)
        if u["sessionUpdate"] in ("tool_call", "tool_call_update") and u["toolCallId"] == tool_id
    ]


def tool_calls(agent: AgentHarness, session: str, since: int) -> list[dict[str, Any]]:
    return agent.updates(session, "tool_call", since)


async def test_edit_allowed_reads_and_writes_through_the_client_in_order(agent: AgentHarness) -> None:
    session = await start(agent)
    since = agent.mark()
    app = agent.workspace / "src" / "app.py"

    assert await agent.prompt(session, "edit src/app.py") == {"stopReason": "end_turn"}

    assert app.read_text() == ORIGINAL_APP + REVIEW_LINE + "\n"
    steps = [label for label in agent.sequence(since) if label != "agent_message_chunk"]
    assert steps == [
        "agent_thought_chunk",
        "plan",
        "tool_call",
        "fs/read_text_file",
        "tool_call_update",
        "plan",
        "tool_call",
        "plan",
        "session/request_permission",
        "tool_call_update",
        "fs/write_text_file",
        "tool_call_update",
        "plan",
        "session_info_update",
        "usage_update",
        "response",
    ]
    read, edit = tool_calls(agent, session, since)
    assert read["kind"] == "read"
    assert read["locations"] == [{"path": str(app), "line": 1}]
    (read_request,) = agent.requests("fs/read_text_file", since)
    assert read_request["params"] == {"sessionId": session, "path": str(app), "line": 1}

    assert edit["kind"] == "edit" and edit["status"] == "pending"
    (diff,) = edit["content"]
    assert diff == {
        "type": "diff",
        "path": str(app),
        "oldText": ORIGINAL_APP,
        "newText": ORIGINAL_APP + REVIEW_LINE + "\n",
    }
    (permission,) = agent.requests("session/request_permission", since)
    assert permission["params"]["toolCall"]["toolCallId"] == edit["toolCallId"]
    assert [(o["optionId"], o["name"], o["kind"]) for o in permission["params"]["options"]] == [
        ("apply", "Apply edit", "allow_once"),
        ("always", "Always allow edits", "allow_always"),
        ("skip", "Skip", "reject_once"),
    ]
    (write,) = agent.requests("fs/write_text_file", since)
    assert write["params"]["content"] == ORIGINAL_APP + REVIEW_LINE + "\n"
    final = tool_updates(agent, session, since, edit["toolCallId"])[-1]
    assert final["status"] == "completed"
    assert final["rawOutput"] == {"written": True, "via": "client", "bytes": len(write["params"]["content"])}
    assert "through your client" in agent.message_text(session, since)


async def test_edit_plan_has_three_prioritised_entries_replaced_whole_as_it_goes(agent: AgentHarness) -> None:
    session = await start(agent)
    since = agent.mark()

    await agent.prompt(session, "change README.md")

    plans = [u["entries"] for u in agent.updates(session, "plan", since)]
    assert all(len(entries) == 3 for entries in plans)
    assert [e["priority"] for e in plans[0]] == ["high", "medium", "low"]
    assert [[e["status"] for e in entries] for entries in plans] == [
        ["in_progress", "pending", "pending"],
        ["completed", "in_progress", "pending"],
        ["completed", "completed", "in_progress"],
        ["completed", "completed", "completed"],
    ]


async def test_edit_rejected_leaves_the_file_alone_and_fails_the_tool_call(agent: AgentHarness) -> None:
    session = await start(agent)
    assert agent.client is not None
    agent.client.permission_answer = "skip"
    since = agent.mark()
    before = (agent.workspace / "README.md").read_text()

    assert await agent.prompt(session, "edit README.md") == {"stopReason": "end_turn"}

    assert (agent.workspace / "README.md").read_text() == before
    assert not agent.requests("fs/write_text_file", since)
    edit = tool_calls(agent, session, since)[1]
    final = tool_updates(agent, session, since, edit["toolCallId"])[-1]
    assert final["status"] == "failed"
    assert final["rawOutput"] == {"written": False, "reason": "rejected"}
    assert "unchanged" in agent.message_text(session, since)


async def test_an_unknown_permission_answer_is_never_taken_as_approval(agent: AgentHarness) -> None:
    session = await start(agent)
    assert agent.client is not None
    agent.client.permission_answer = "yes-please"
    before = (agent.workspace / "README.md").read_text()

    await agent.prompt(session, "edit README.md")

    assert (agent.workspace / "README.md").read_text() == before
    assert not agent.requests("fs/write_text_file")


async def test_cancel_while_waiting_for_permission_ends_the_turn_cancelled(agent: AgentHarness) -> None:
    session = await start(agent)
    assert agent.client is not None
    agent.client.permission_answer = None  # answer only once we cancel, with "cancelled"
    before = (agent.workspace / "README.md").read_text()
    since = agent.mark()

    turn = asyncio.create_task(agent.prompt(session, "edit README.md"))
    await agent.wait_for(lambda: agent.requests("session/request_permission", since))
    await agent.cancel(session)

    assert await asyncio.wait_for(turn, timeout=5) == {"stopReason": "cancelled"}
    assert (agent.workspace / "README.md").read_text() == before
    assert not agent.requests("fs/write_text_file", since)
    edit = tool_calls(agent, session, since)[1]
    final = tool_updates(agent, session, since, edit["toolCallId"])[-1]
    assert final == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": edit["toolCallId"],
        "status": "failed",
        "rawOutput": {"written": False, "reason": "cancelled"},
    }


async def test_allow_always_skips_the_question_next_time(agent: AgentHarness) -> None:
    session = await start(agent)
    assert agent.client is not None
    agent.client.permission_answer = "always"
    await agent.prompt(session, "edit README.md")
    since = agent.mark()

    await agent.prompt(session, "edit notes.txt")

    assert not agent.requests("session/request_permission", since)
    assert (agent.workspace / "notes.txt").read_text().endswith(REVIEW_LINE + "\n")


async def test_without_fs_capabilities_the_agent_reads_and_writes_itself_and_says_so(
    agent: AgentHarness,
) -> None:
    session = await start(agent, SUGGESTIONS)
    since = agent.mark()

    await agent.prompt(session, "edit notes.txt")

    assert not agent.requests("fs/read_text_file") and not agent.requests("fs/write_text_file")
    assert agent.requests("session/request_permission", since)
    assert (agent.workspace / "notes.txt").read_text() == "first line\nsecond line\n" + REVIEW_LINE + "\n"
    text = agent.message_text(session, since)
    assert "did not advertise `fs.readTextFile` or `fs.writeTextFile`, so I worked on the file" in text


async def test_edit_outside_the_workspace_is_refused_without_a_tool_call(
    agent: AgentHarness, tmp_path: Path
) -> None:
    (tmp_path / "outside.txt").write_text("keep\n")
    session = await start(agent)
    since = agent.mark()

    await agent.prompt(session, "edit ../outside.txt")

    assert not tool_calls(agent, session, since)
    assert not agent.requests(since=since)
    assert "outside the workspace" in agent.message_text(session, since)
    assert (tmp_path / "outside.txt").read_text() == "keep\n"


async def test_a_client_refusing_the_read_fails_the_read_tool_call(agent: AgentHarness) -> None:
    session = await start(agent)
    assert agent.client is not None
    agent.client.files.roots = ()  # this client serves nothing
    since = agent.mark()

    assert await agent.prompt(session, "edit README.md") == {"stopReason": "end_turn"}

    (read,) = tool_calls(agent, session, since)
    assert tool_updates(agent, session, since, read["toolCallId"])[-1]["status"] == "failed"
    assert not agent.requests("session/request_permission", since)
    assert "could not read" in agent.message_text(session, since)


async def test_run_is_an_execute_tool_call_with_pretend_output(agent: AgentHarness) -> None:
    session = await start(agent)
    since = agent.mark()

    await agent.prompt(session, "run tests")

    (call,) = tool_calls(agent, session, since)
    assert call["kind"] == "execute"
    assert call["rawInput"] == {"command": "pytest -q"}
    updates = tool_updates(agent, session, since, call["toolCallId"])
    assert [u.get("status") for u in updates] == ["pending", "in_progress", "completed"]
    final = updates[-1]
    assert final["rawOutput"]["exitCode"] == 0
    assert "3 passed" in final["content"][0]["content"]["text"]
    assert "3 passed" in final["rawOutput"]["stdout"]


async def test_run_any_command_pretends_for_a_client_without_terminals(agent: AgentHarness) -> None:
    session = await start(agent)
    since = agent.mark()

    await agent.prompt(session, "run make lint")

    (call,) = tool_calls(agent, session, since)
    assert call["rawInput"] == {"command": "make lint"}
    assert "simulated run" in agent.message_text(session, since)
    assert not agent.requests("terminal/create", since)
    assert not agent.requests("session/request_permission", since)


async def test_search_reports_each_match_as_a_location_with_its_line(agent: AgentHarness) -> None:
    session = await start(agent)
    since = agent.mark()

    await agent.prompt(session, "search line")

    (call,) = tool_calls(agent, session, since)
    assert call["kind"] == "search" and call["rawInput"] == {"query": "line"}
    final = tool_updates(agent, session, since, call["toolCallId"])[-1]
    notes = str(agent.workspace / "notes.txt")
    assert final["locations"] == [{"path": notes, "line": 1}, {"path": notes, "line": 2}]
    assert final["rawOutput"] == {"matches": 2, "files": 1}
    assert "`notes.txt:1`" in agent.message_text(session, since)


async def test_search_skips_hidden_files(agent: AgentHarness) -> None:
    session = await start(agent)
    since = agent.mark()

    await agent.prompt(session, "search SECRET")

    final = agent.updates(session, "tool_call_update", since)[-1]
    assert final["locations"] == []
    assert "No matches" in agent.message_text(session, since)
