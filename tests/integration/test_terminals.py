"""Client terminals (`terminal/*`) served to a real scripted agent: create, stream, exit, kill, release,
output limits, cwd and env, and every process gone when its session closes or its agent exits."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.driver import SessionDriver
from tests.support.html import status_is
from tests.support.live import open_tab, run_server, scripted_agent
from tests.support.polling import eventually
from tests.support.processes import pid_alive
from webclient.acp.models import AgentStatus, TerminalExit, TextPart
from webclient.domain.items import MessageItem, NoticeItem, PermissionItem, ToolCallItem
from webclient.domain.state import TurnState
from webclient.settings import Settings
from webclient.views import render

CREATE = "terminal/create"


@asynccontextmanager
async def running(workspace: Path) -> AsyncIterator[SessionDriver]:
    driver = SessionDriver(Settings(agent=scripted_agent("uses_terminals"), cwd=workspace, flush_interval=0))
    await driver.start()
    try:
        await eventually(lambda: driver.state.agent_status is AgentStatus.READY, 20, "agent ready")
        await eventually(lambda: driver.state.session_id is not None, 20, "the session")
        yield driver
    finally:
        await driver.shutdown()


def answers(driver: SessionDriver) -> list[list[dict[str, Any]]]:
    texts = [i.text for i in driver.state.items if isinstance(i, MessageItem) and i.role == "agent"]
    return [json.loads(t.removeprefix("ANSWER ")) for t in texts if t.startswith("ANSWER ")]


def send(driver: SessionDriver, *steps: dict[str, Any]) -> None:
    driver.submit_prompt([TextPart(text=json.dumps(list(steps)))])


async def run(driver: SessionDriver, *steps: dict[str, Any]) -> list[dict[str, Any]]:
    before = len(answers(driver))
    send(driver, *steps)
    await eventually(lambda: len(answers(driver)) > before, 30, "the agent's report")
    return answers(driver)[-1]


def create(command: str, **params: Any) -> dict[str, Any]:
    return {"call": CREATE, "params": {"command": command, **params}}


def call(method: str) -> dict[str, Any]:
    return {"call": f"terminal/{method}", "params": {"terminalId": "$tid"}}


def card(driver: SessionDriver) -> ToolCallItem:
    (item,) = [i for i in driver.state.items if isinstance(i, ToolCallItem)]
    return item


def output_of(driver: SessionDriver, terminal_id: str) -> str:
    view = driver.state.terminals.get(terminal_id)
    return view.output if view else ""


def pids_in(driver: SessionDriver, terminal_id: str, count: int) -> list[int]:
    lines = output_of(driver, terminal_id).split()
    assert len(lines) >= count, lines
    return [int(p) for p in lines[:count]]


async def test_the_client_advertises_terminals(workspace: Path) -> None:
    async with running(workspace) as driver:
        (init,) = [m for d, m in driver.wire_log if d == "out" and m.get("method") == "initialize"]
        assert init["params"]["clientCapabilities"]["terminal"] is True


async def test_output_streams_into_the_card_before_the_command_exits_then_its_exit_status(
    workspace: Path,
) -> None:
    gate = workspace / "gate"
    script = f"printf 'first\\n'; while [ ! -e {gate} ]; do sleep 0.05; done; printf 'second\\n'; exit 3"
    async with running(workspace) as driver:
        send(
            driver,
            create(script),
            {"card": "a gated command"},
            call("wait_for_exit"),
            call("output"),
            call("release"),
        )
        # The command's first line can reach us before the agent's update that makes its card.
        await eventually(
            lambda: (
                any(v.output == "first\n" for v in driver.state.terminals.values())
                and any(isinstance(i, ToolCallItem) and i.terminal_ids for i in driver.state.items)
            ),
            20,
            "the first line before the exit, in its card",
        )
        item = card(driver)
        (terminal_id,) = item.terminal_ids
        assert driver.state.terminals[terminal_id].exit is None
        running_html = render.item(driver.state, item)
        assert 'data-state="running"' in running_html and "first" in running_html
        gate.touch()
        await eventually(lambda: bool(answers(driver)), 30, "the agent's report")
        created, waited, output, released = answers(driver)[-1]
        assert created == {"result": {"terminalId": terminal_id}}
        assert waited == {"result": {"exitCode": 3}}
        expected = {"output": "first\nsecond\n", "truncated": False, "exitStatus": {"exitCode": 3}}
        assert output["result"] == expected
        assert released == {"result": {}}
        # Released, the card keeps the command's last output and how it ended.
        html = render.item(driver.state, item)
        assert "first\nsecond\n" in html and "Exited with code" in html and 'data-state="exited"' in html


async def test_args_are_passed_without_a_shell_and_env_is_applied_without_our_own_variables(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WEBCLIENT_TEST_SECRET", "do-not-leak")
    async with running(workspace) as driver:
        replies = await run(
            driver, create("printf", args=["%s|", "a b", "$HOME"]), call("wait_for_exit"), call("output")
        )
        assert replies[2]["result"]["output"] == "a b|$HOME|"
        env = [{"name": "GREETING", "value": "hi there"}]
        script = 'echo "$GREETING ${WEBCLIENT_TEST_SECRET-unset}"'
        replies = await run(driver, create(script, env=env), call("wait_for_exit"), call("output"))
        assert replies[2]["result"]["output"] == "hi there unset\n"


async def test_the_output_limit_keeps_the_tail_cut_at_a_character_boundary(workspace: Path) -> None:
    async with running(workspace) as driver:
        # "x€€" is 7 bytes; the last 4 start inside the first "€", so 3 bytes ("€") are kept.
        replies = await run(
            driver, create("printf 'x€€'", outputByteLimit=4), call("wait_for_exit"), call("output")
        )
        assert replies[2]["result"]["output"] == "€"
        assert replies[2]["result"]["truncated"] is True
        replies = await run(
            driver, create("printf 'x€€'", outputByteLimit=7), call("wait_for_exit"), call("output")
        )
        assert replies[2]["result"]["output"] == "x€€" and replies[2]["result"]["truncated"] is False
        replies = await run(
            driver, create("printf 'x'", outputByteLimit=0), call("wait_for_exit"), call("output")
        )
        assert replies[2]["result"]["output"] == "" and replies[2]["result"]["truncated"] is True


async def test_kill_ends_the_command_and_the_terminal_stays_readable_until_released(workspace: Path) -> None:
    async with running(workspace) as driver:
        replies = await run(
            driver,
            create("echo started; exec sleep 60"),
            call("kill"),
            call("wait_for_exit"),
            call("output"),
            call("release"),
            call("output"),
        )
        _, killed, waited, output, released, after = replies
        assert killed == {"result": {}}
        assert waited == {"result": {"signal": "SIGKILL"}}
        assert output["result"]["exitStatus"] == {"signal": "SIGKILL"}
        assert released == {"result": {}}
        assert after["error"]["code"] == -32602 and "released" in after["error"]["message"]


async def test_a_cwd_outside_the_session_directory_is_refused_and_one_inside_is_used(
    workspace: Path, tmp_path: Path
) -> None:
    async with running(workspace) as driver:
        (refused,) = await run(driver, create("pwd", cwd=str(tmp_path)))
        assert refused["error"]["code"] == -32602 and "outside" in refused["error"]["message"]
        notices = [i.notice.text for i in driver.state.items if isinstance(i, NoticeItem)]
        assert any("refused to run a command" in text for text in notices)
        (escape,) = await run(driver, create("pwd", cwd=f"{workspace}/../"))
        assert "error" in escape
        replies = await run(
            driver, create("pwd", cwd=str(workspace / "src")), call("wait_for_exit"), call("output")
        )
        assert replies[2]["result"]["output"].strip().endswith("/src")


async def test_closing_the_session_kills_its_commands_and_their_children(workspace: Path) -> None:
    async with running(workspace) as driver:
        # The shell prints its own pid and its background child's, then waits for the child.
        (created,) = await run(driver, create("sleep 60 & echo $!; echo $$; wait"), {"card": "sleeps"})
        terminal_id = created["result"]["terminalId"]
        await eventually(lambda: len(output_of(driver, terminal_id).split()) == 2, 20, "both pids")
        child, shell = pids = pids_in(driver, terminal_id, 2)
        assert all(pid_alive(pid) for pid in pids)
        await driver.registry.close(driver.current.local_id)
        assert not pid_alive(shell)  # the command itself is reaped before the close returns
        # Its child got the same SIGKILL (the whole group), and ends as soon as the kernel runs it: on a
        # busy machine that can be a moment after the close returns.
        await eventually(lambda: not pid_alive(child), 10, "the command's child to end")


async def test_an_agent_that_exits_leaves_no_command_running(workspace: Path) -> None:
    async with running(workspace) as driver:
        send(driver, create("sleep 60 & echo $!; echo $$; wait"), {"card": "sleeps"}, {"exit": 0})
        await eventually(lambda: driver.state.agent_status is AgentStatus.EXITED, 30, "the agent's exit")
        (terminal_id,) = card(driver).terminal_ids
        await eventually(lambda: len(driver.state.terminals[terminal_id].output.split()) == 2, 20, "pids")
        pids = pids_in(driver, terminal_id, 2)
        await eventually(lambda: not any(pid_alive(pid) for pid in pids), 20, "the commands gone")


async def test_server_shutdown_kills_every_command(workspace: Path) -> None:
    driver = SessionDriver(Settings(agent=scripted_agent("uses_terminals"), cwd=workspace, flush_interval=0))
    await driver.start()
    try:
        await eventually(lambda: driver.state.session_id is not None, 20, "the session")
        (created,) = await run(driver, create("echo $$; exec sleep 60"))
        terminal_id = created["result"]["terminalId"]
        await eventually(lambda: bool(driver.state.terminals.get(terminal_id)), 20, "the pid")
        (pid,) = pids_in(driver, terminal_id, 1)
        assert pid_alive(pid)
    finally:
        await driver.shutdown()
    assert not pid_alive(pid)


async def test_the_demo_agents_run_asks_then_runs_the_command_in_a_client_terminal(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WEBCLIENT_DEMO_STATE_DIR", str(tmp_path / "state"))
    driver = SessionDriver(Settings(agent="", cwd=workspace, flush_interval=0))
    await driver.start()
    try:
        await eventually(lambda: driver.state.session_id is not None, 30, "the session")
        driver.submit_prompt([TextPart(text="run echo hello from $0; exit 4")])
        await eventually(lambda: any(isinstance(i, PermissionItem) for i in driver.state.items), 30, "ask")
        (asked,) = [i for i in driver.state.items if isinstance(i, PermissionItem)]
        assert asked.tool_call.kind == "execute" and "echo hello" in (asked.title or "")
        assert not driver.state.terminals  # nothing runs before the user allows it
        driver.current.answer_permission(asked.id, "run")
        await eventually(
            lambda: driver.state.turn is TurnState.IDLE and bool(driver.state.terminals),
            30,
            "the turn's end",
        )
        item = card(driver)
        (terminal_id,) = item.terminal_ids
        view = driver.state.terminals[terminal_id]
        assert view.output == "hello from sh\n" and view.exit == TerminalExit(exit_code=4)
        assert item.status == "failed"
        reply = [i.text for i in driver.state.items if isinstance(i, MessageItem) and i.role == "agent"][-1]
        assert "exited with code 4" in reply and "hello from sh" in reply
        assert driver.current.terminals.running == ()  # released
    finally:
        await driver.shutdown()


@pytest.mark.system
async def test_stopping_the_server_kills_every_command(workspace: Path) -> None:
    steps = [create("sleep 60 & echo pids $! $$; wait"), {"card": "sleeps"}]
    with run_server(scripted_agent("uses_terminals"), cwd=workspace) as server:
        tab = await open_tab(server)
        await tab.wait_for(status_is("ready"))
        await tab.send(action="prompt", text=json.dumps(steps))
        html = await tab.wait_for(lambda html: re.search(r"pids \d+ \d+", html) is not None)
        match = re.search(r"pids (\d+) (\d+)", html)
        assert match is not None
        pids = [int(match.group(1)), int(match.group(2))]
        assert all(pid_alive(pid) for pid in pids)
        await tab.close()
    assert not any(pid_alive(pid) for pid in pids)


async def test_what_a_command_leaves_running_in_the_background_ends_with_it(workspace: Path) -> None:
    async with running(workspace) as driver:
        replies = await run(
            driver, create("sleep 60 >/dev/null 2>&1 & echo $!"), call("wait_for_exit"), call("output")
        )
        assert replies[1] == {"result": {"exitCode": 0}}
        (child,) = [int(p) for p in replies[2]["result"]["output"].split()]
        await eventually(lambda: not pid_alive(child), 20, "the background child gone")


@pytest.mark.system
async def test_a_command_never_gets_a_variable_holding_the_token_nor_webclients_own(workspace: Path) -> None:
    # A server process of its own, started with a token the user chose and a variable that holds it, as
    # a user's shell could have: the command the agent runs sees neither, as the agent itself does not.
    token = "tok-" + "t3rminal" * 5
    env = {"WEBCLIENT_TOKEN": token, "LEAKS_THE_TOKEN": f"x{token}x", "KEPT_FOR_COMMANDS": "yes"}
    steps = [create("env"), {"call": "terminal/wait_for_exit", "params": {"terminalId": "$tid"}},
             {"call": "terminal/output", "params": {"terminalId": "$tid"}}]  # fmt: skip
    with run_server(scripted_agent("uses_terminals"), cwd=workspace, env=env) as server:
        assert server.token == token
        tab = await open_tab(server)
        await tab.wait_for(status_is("ready"))
        await tab.send(action="prompt", text=json.dumps(steps))
        html = await tab.wait_for(lambda html: "KEPT_FOR_COMMANDS=yes" in html, timeout=30)
        await tab.close()
    assert token not in html
    assert "LEAKS_THE_TOKEN" not in html and "WEBCLIENT_" not in html
