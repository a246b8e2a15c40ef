"""A session's client terminals are bounded: at most 32 not released (a create past that is refused with
an error that says so), and 16 Mi characters of output kept together, the oldest keeping their tail
only; a closed session ends them all. Real commands through a real scripted agent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.driver import SessionDriver
from tests.support.live import scripted_agent
from tests.support.polling import eventually
from tests.support.processes import pid_alive
from webclient.acp.models import AgentStatus, TextPart
from webclient.domain.items import MessageItem
from webclient.domain.terminals import KEPT_TAIL_CHARS, MAX_LIVE_TERMINALS, MAX_SESSION_OUTPUT_CHARS
from webclient.settings import Settings

MiB = 1024 * 1024


def answers(driver: SessionDriver) -> list[list[dict[str, Any]]]:
    texts = [i.text for i in driver.state.items if isinstance(i, MessageItem) and i.role == "agent"]
    return [json.loads(t.removeprefix("ANSWER ")) for t in texts if t.startswith("ANSWER ")]


async def run(driver: SessionDriver, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    before = len(answers(driver))
    driver.submit_prompt([TextPart(text=json.dumps(steps))])
    await eventually(lambda: len(answers(driver)) > before, 120, "the agent's report")
    return answers(driver)[-1]


def create(command: str) -> dict[str, Any]:
    return {"call": "terminal/create", "params": {"command": command}}


async def started(workspace: Path) -> SessionDriver:
    driver = SessionDriver(Settings(agent=scripted_agent("uses_terminals"), cwd=workspace, flush_interval=0))
    await driver.start()
    await eventually(lambda: driver.state.agent_status is AgentStatus.READY, 30, "agent ready")
    await eventually(lambda: driver.state.session_id is not None, 30, "the session")
    return driver


async def test_a_create_past_the_live_terminal_cap_is_refused_and_a_release_makes_room(
    workspace: Path,
) -> None:
    driver = await started(workspace)
    try:
        replies = await run(driver, [create("exec sleep 600")] * (MAX_LIVE_TERMINALS + 1))
        assert all("result" in r for r in replies[:MAX_LIVE_TERMINALS])
        refused = replies[-1]["error"]
        assert (
            refused["code"] == -32602 and f"has {MAX_LIVE_TERMINALS} terminals already" in refused["message"]
        )
        assert "release one" in refused["message"]
        release = {"call": "terminal/release", "params": {"terminalId": "term-1"}}
        released, again = await run(driver, [release, create("exec sleep 600")])
        assert released == {"result": {}} and "result" in again
        pids = driver.current.terminals.running
        assert len(pids) == MAX_LIVE_TERMINALS
        await driver.registry.close(driver.current.local_id)
        await eventually(
            lambda: not any(pid_alive(p) for p in pids), 20, "every command ended with the session"
        )
    finally:
        await driver.shutdown()


async def test_the_output_live_terminals_keep_together_is_bounded_the_oldest_keeping_their_tail(
    workspace: Path,
) -> None:
    driver = await started(workspace)
    try:
        count = 20  # 20 MiB of output in all, past the 16 Mi characters a session keeps
        command = f"head -c {MiB} /dev/zero | tr '\\\\0' x; exec sleep 600"
        await run(driver, [create(command)] * count)
        terminals = driver.current.terminals
        ids = [f"term-{n}" for n in range(1, count + 1)]
        await eventually(
            lambda: all(terminals.output(t).truncated or len(terminals.output(t).output) == MiB for t in ids),
            120,
            "every command's output read",
        )
        assert sum(len(terminals.output(t).output) for t in ids) <= MAX_SESSION_OUTPUT_CHARS
        first = terminals.output("term-1")
        assert first.truncated and len(first.output) == KEPT_TAIL_CHARS
    finally:
        await driver.shutdown()
