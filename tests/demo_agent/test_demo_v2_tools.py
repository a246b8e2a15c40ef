"""ACP v2 tool turns: tool_call_update + content chunks, plan_update, v2 diffs and permissions, display
terminals; the agent reads and writes the workspace itself (v2 clients have no file system)."""

from __future__ import annotations

import base64
from typing import Any

from tests.support.demo_agent import ORIGINAL_APP, REVIEW_LINE, SHARES_AGENTS
from tests.support.demo_agent_v2 import V2Harness

pytestmark = SHARES_AGENTS

Json = dict[str, Any]


def tool_updates(agent: V2Harness, session: str, since: int, tool_id: str | None = None) -> list[Json]:
    return [
        u
        for u in agent.updates(session, since=since)
        if u["sessionUpdate"] in ("tool_call_update", "tool_call_content_chunk")
        and (tool_id is None or u["toolCallId"] == tool_id)
    ]


def tool_ids(agent: V2Harness, session: str, since: int) -> list[str]:
    """Tool call ids in the order they were created (first seen)."""
    return list(dict.fromkeys(u["toolCallId"] for u in tool_updates(agent, session, since)))


async def test_edit_plans_reads_proposes_a_v2_diff_asks_and_writes_in_order(agent_v2: V2Harness) -> None:
    session = await agent_v2.start()
    app = agent_v2.workspace / "src" / "app.py"
    since = agent_v2.mark()

    await agent_v2.turn(session, "edit src/app.py")

    assert app.read_text() == ORIGINAL_APP + REVIEW_LINE + "\n"
    steps = [k for k in agent_v2.sequence(since) if k not in ("agent_message_chunk", "response")]
    assert steps == [
        "user_message", "state_update", "agent_thought_chunk",
        "plan_update", "tool_call_update", "tool_call_content_chunk", "tool_call_update",
        "plan_update", "tool_call_update", "plan_update",
        "state_update", "session/request_permission", "state_update",
        "tool_call_update", "tool_call_update", "plan_update",
        "session_info_update", "usage_update", "state_update",
    ]  # fmt: skip
    states = [u["state"] for u in agent_v2.states(session, since)]
    assert states == ["running", "requires_action", "running", "idle"]
    assert not agent_v2.requests("fs/read_text_file") and not agent_v2.requests("fs/write_text_file")

    read_id, edit_id = tool_ids(agent_v2, session, since)
    created = tool_updates(agent_v2, session, since, read_id)[0]
    assert created == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": read_id,
        "title": "Read src/app.py",
        "kind": "read",
        "status": "in_progress",
        "locations": [{"path": str(app), "line": 1}],
        "rawInput": {"path": str(app), "line": 1},
    }
    chunk = tool_updates(agent_v2, session, since, read_id)[1]
    assert chunk["content"] == {
        "type": "content",
        "content": {"type": "text", "text": "Read 9 lines of src/app.py"},
    }

    edit = tool_updates(agent_v2, session, since, edit_id)[0]
    assert (edit["kind"], edit["status"]) == ("edit", "pending")
    (diff,) = edit["content"]
    assert diff["changes"] == [{"operation": "modify", "path": str(app), "fileType": "text"}]
    assert diff["patch"] == {
        "format": "git_patch",
        "text": "diff --git a/src/app.py b/src/app.py\n--- a/src/app.py\n+++ b/src/app.py\n"
        "@@ -7,3 +7,4 @@\n \n def main(argv, *, loud=False):\n     return 0\n+# reviewed by the demo agent\n",
    }
    (permission,) = agent_v2.requests("session/request_permission", since)
    params = permission["params"]
    assert isinstance(permission["id"], str)
    assert params["title"] == "Append a review comment to src/app.py"
    assert params["description"] == "The demo agent wants to write this change to the file."
    assert params["subject"]["type"] == "tool_call"
    assert params["subject"]["toolCall"]["toolCallId"] == edit_id
    assert params["subject"]["toolCall"]["content"] == [diff]
    assert "toolCall" not in params
    assert [o["optionId"] for o in params["options"]] == ["apply", "always", "skip"]
    final = tool_updates(agent_v2, session, since, edit_id)[-1]
    assert final["status"] == "completed" and final["rawOutput"]["via"] == "agent"
    assert "In ACP v2 the agent works on files itself" in agent_v2.message_text(session, since)


async def test_edit_plan_updates_one_plan_id_with_typed_items(agent_v2: V2Harness) -> None:
    session = await agent_v2.start()
    since = agent_v2.mark()

    await agent_v2.turn(session, "edit README.md")

    plans = [u["plan"] for u in agent_v2.updates(session, "plan_update", since)]
    assert {p["type"] for p in plans} == {"items"}
    assert len({p["planId"] for p in plans}) == 1
    assert [[e["status"] for e in p["entries"]] for p in plans] == [
        ["in_progress", "pending", "pending"],
        ["completed", "in_progress", "pending"],
        ["completed", "completed", "in_progress"],
        ["completed", "completed", "completed"],
    ]
    assert [e["priority"] for e in plans[0]["entries"]] == ["high", "medium", "low"]
    next_since = agent_v2.mark()
    await agent_v2.turn(session, "edit README.md")
    later = agent_v2.updates(session, "plan_update", next_since)[0]["plan"]["planId"]
    assert later != plans[0]["planId"], "each edit turn has its own plan"


async def test_a_rejected_edit_leaves_the_file_and_resumes_running(agent_v2: V2Harness) -> None:
    session = await agent_v2.start()
    agent_v2.permission_answer = "skip"
    before = (agent_v2.workspace / "README.md").read_text()
    since = agent_v2.mark()

    await agent_v2.turn(session, "edit README.md")

    assert (agent_v2.workspace / "README.md").read_text() == before
    assert [u["state"] for u in agent_v2.states(session, since)] == [
        "running",
        "requires_action",
        "running",
        "idle",
    ]
    edit_id = tool_ids(agent_v2, session, since)[1]
    assert tool_updates(agent_v2, session, since, edit_id)[-1]["status"] == "failed"


async def test_cancel_while_asking_permission_ends_idle_cancelled_without_running_again(
    agent_v2: V2Harness,
) -> None:
    session = await agent_v2.start()
    agent_v2.permission_answer = None  # answer `cancelled` once we have cancelled
    before = (agent_v2.workspace / "README.md").read_text()
    since = agent_v2.mark()
    await agent_v2.prompt(session, "edit README.md")
    await agent_v2.wait_for(lambda: agent_v2.requests("session/request_permission", since))

    await agent_v2.cancel(session)
    (idle,) = await agent_v2.wait_idle(session, since)

    assert idle["stopReason"] == "cancelled"
    assert [u["state"] for u in agent_v2.states(session, since)] == ["running", "requires_action", "idle"]
    assert (agent_v2.workspace / "README.md").read_text() == before


async def test_run_a_command_streams_it_into_a_display_terminal(agent_v2: V2Harness) -> None:
    session = await agent_v2.start()
    agent_v2.permission_answer = "run"
    since = agent_v2.mark()

    await agent_v2.turn(session, "run printf 'one\\ntwo\\n'; exit 3")

    assert not agent_v2.requests("terminal/create")
    (permission,) = agent_v2.requests("session/request_permission", since)
    assert permission["params"]["subject"]["toolCall"]["kind"] == "execute"
    terminals = [
        u for u in agent_v2.updates(session, since=since) if u["sessionUpdate"].startswith("terminal_")
    ]
    terminal_id = terminals[0]["terminalId"]
    assert terminals[0] == {
        "sessionUpdate": "terminal_update",
        "terminalId": terminal_id,
        "command": "printf 'one\\ntwo\\n'; exit 3",
        "cwd": str(agent_v2.workspace.resolve()),
        "output": {"data": ""},
    }
    output = b"".join(
        base64.b64decode(u["data"]) for u in terminals if u["sessionUpdate"] == "terminal_output_chunk"
    )
    assert output == b"one\ntwo\n"
    assert terminals[-1] == {
        "sessionUpdate": "terminal_update",
        "terminalId": terminal_id,
        "exitStatus": {"exitCode": 3},
    }
    run_id = tool_ids(agent_v2, session, since)[0]
    embeds = [
        u
        for u in tool_updates(agent_v2, session, since, run_id)
        if u["sessionUpdate"] == "tool_call_content_chunk"
    ]
    assert [e["content"] for e in embeds] == [{"type": "terminal", "terminalId": terminal_id}]
    assert tool_updates(agent_v2, session, since, run_id)[-1]["status"] == "failed"
    assert "exited with code 3" in agent_v2.message_text(session, since)


async def test_cancel_kills_a_running_command(agent_v2: V2Harness) -> None:
    session = await agent_v2.start()
    agent_v2.permission_answer = "run"
    since = agent_v2.mark()
    await agent_v2.prompt(session, "run echo started; sleep 60")
    await agent_v2.wait_for(lambda: agent_v2.updates(session, "terminal_output_chunk", since))

    await agent_v2.cancel(session)
    (idle,) = await agent_v2.wait_idle(session, since)

    assert idle["stopReason"] == "cancelled"
    exit_update = agent_v2.updates(session, "terminal_update", since)[-1]
    assert exit_update["exitStatus"] == {"signal": "SIGKILL"}


async def test_run_tests_shows_its_pretend_output_as_one_terminal_snapshot(agent_v2: V2Harness) -> None:
    session = await agent_v2.start()
    since = agent_v2.mark()

    await agent_v2.turn(session, "run tests")

    assert not agent_v2.requests("session/request_permission", since)
    (snapshot,) = agent_v2.updates(session, "terminal_update", since)
    assert snapshot["command"] == "pytest -q" and snapshot["exitStatus"] == {"exitCode": 0}
    assert b"3 passed" in base64.b64decode(snapshot["output"]["data"])
    *_, embed, final = tool_updates(agent_v2, session, since)
    assert embed["sessionUpdate"] == "tool_call_content_chunk"
    assert embed["content"] == {"type": "terminal", "terminalId": snapshot["terminalId"]}
    assert final["status"] == "completed" and "content" not in final


async def test_search_creates_its_tool_call_then_appends_its_summary(agent_v2: V2Harness) -> None:
    session = await agent_v2.start()
    since = agent_v2.mark()

    await agent_v2.turn(session, "search line")

    created, chunk, done = tool_updates(agent_v2, session, since)
    assert (created["title"], created["kind"], created["status"]) == (
        "Search for line",
        "search",
        "in_progress",
    )
    assert chunk["sessionUpdate"] == "tool_call_content_chunk"
    assert chunk["content"]["content"]["text"] == "2 matches in 1 file"
    assert done["status"] == "completed" and "content" not in done
    assert [loc["line"] for loc in done["locations"]] == [1, 2]
