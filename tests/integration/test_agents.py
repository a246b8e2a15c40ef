"""Agents as people run them: the user's environment, a settings file with several agents and MCP
servers, and sign-in with environment variables. A real server (on a thread of this process, or a
subprocess where its own environment is what is tested), scripted agents, a tab."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.support.driver import started
from tests.support.html import Page, has_notice, status_is, turn_finished
from tests.support.live import (
    AGENTS,
    ROOT,
    LiveServer,
    http_get,
    open_tab,
    run_server,
    scripted_agent,
    serve_in_thread,
)
from tests.support.polling import eventually
from webclient.acp.models import AgentStatus, TextPart
from webclient.domain.items import MessageItem, NoticeItem
from webclient.domain.state import SessionState, TurnState
from webclient.errors import Refused
from webclient.settings import Settings

Start = Callable[..., LiveServer]
SECRET_TOKEN = "tok-" + "s3cret" * 6


@pytest.fixture
def start(workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Start]:
    """A live server in `workspace` on a thread of this process, with an empty XDG config folder of its
    own. `env` is set in this process's environment for the test, which the server reads as its own and
    its agent inherits, as a subprocess server's would be."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    with ExitStack() as stack:

        def run(*args: str, agent: str | None = None, env: dict[str, str] | None = None) -> LiveServer:
            for name, value in (env or {}).items():
                monkeypatch.setenv(name, value)
            return stack.enter_context(serve_in_thread(agent, cwd=workspace, extra_args=args))

        yield run


@pytest.fixture
def start_process(workspace: Path, tmp_path: Path) -> Iterator[Start]:
    """Like `start`, but the server is a subprocess started with `env` added to this process's."""
    with ExitStack() as stack:

        def run(*args: str, agent: str | None = None, env: dict[str, str] | None = None) -> LiveServer:
            full = {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), **(env or {})}
            return stack.enter_context(run_server(agent, cwd=workspace, extra_args=args, env=full))

        yield run


def write_config(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


async def read_report(path: Path) -> dict[str, Any]:
    await eventually(path.exists, 20, f"the agent's report in {path}")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


# --- the environment ---------------------------------------------------------------------------------


@pytest.mark.system
async def test_the_agent_inherits_the_users_environment_but_not_webclients_own_or_its_token(
    start_process: Start, tmp_path: Path
) -> None:
    # A server process of its own: what is tested is what a user's environment passes on to the agent.
    report = tmp_path / "report.json"
    entry = {
        "command": sys.executable,
        "args": [str(AGENTS / "env_report.py"), str(report)],
        "env": {"FROM_FILE": "file", "SHARED": "file"},
    }
    config = write_config(tmp_path / "settings.jsonc", json.dumps({"agent_servers": {"Reporter": entry}}))
    env = {
        "OPENAI_API_KEY": "sk-test-openai",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9/v1",
        "HTTPS_PROXY": "http://proxy.invalid:3128",
        "WEBCLIENT_TOKEN": SECRET_TOKEN,
        "WEBCLIENT_INITIALIZE_TIMEOUT": "40",
        "LEAKS_THE_TOKEN": f"prefix-{SECRET_TOKEN}",
    }
    server = start_process(
        "--config", str(config), "--agent-env", "FROM_CLI=cli", "--agent-env", "SHARED=cli",
        agent="Reporter", env=env,
    )  # fmt: skip
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"))
    received = (await read_report(report))["env"]

    assert received["OPENAI_API_KEY"] == "sk-test-openai"
    assert received["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9/v1"
    assert received["HTTPS_PROXY"] == "http://proxy.invalid:3128"
    assert received["HOME"] == os.environ["HOME"]
    assert received["FROM_CLI"] == "cli" and received["FROM_FILE"] == "file"
    assert received["SHARED"] == "file"  # the file's entry is more specific than --agent-env
    assert [k for k in received if k.startswith("WEBCLIENT_")] == []
    assert not [k for k, v in received.items() if SECRET_TOKEN in v]
    assert server.token == SECRET_TOKEN  # the token the agent never saw is the one in use


# --- the settings file -------------------------------------------------------------------------------


@pytest.mark.system
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"agent_servers": {"Claude": {"args": []}}}', 'agent_servers.Claude: "command" is missing'),
        ('{"agent_servers": {"Codex": {"command": "codex-acp", "args": "-v"}}}', "agent_servers.Codex.args"),
        ('{"agent_servers": {"Gemini": {"command": "gemini", "env": {"K": 1}}}}', "agent_servers.Gemini.env"),
        ('{"agent_servers": [1, 2]}', "'agent_servers' must be an object"),
        ('{"agent_servers": {,}', "not valid JSON"),
    ],
)
def test_a_bad_settings_file_stops_the_start_naming_file_entry_and_problem(
    tmp_path: Path, text: str, expected: str
) -> None:
    config = write_config(tmp_path / "settings.json", text)
    result = subprocess.run(
        [sys.executable, "-m", "webclient", "--config", str(config), "--no-browser", "--port", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert str(config) in result.stderr
    assert expected in result.stderr


@pytest.mark.system
def test_a_settings_file_named_on_the_command_line_must_exist(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    result = subprocess.run(
        [sys.executable, "-m", "webclient", "--config", str(missing), "--no-browser", "--port", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert f"{missing}: no such file" in result.stderr


@pytest.mark.parametrize("http", [False, True], ids=["stdio-only", "http-advertised"])
async def test_mcp_servers_go_to_session_new_as_far_as_the_agent_supports_them(
    start: Start, tmp_path: Path, http: bool
) -> None:
    report = tmp_path / "report.json"
    xdg = tmp_path / "xdg"
    write_config(
        xdg / "webclient" / "settings.json",
        """{
          // the same file Zed reads
          "agent_servers": {"Reporter": {"command": COMMAND, "args": ARGS},},
          "context_servers": {
            "files": {"command": "/usr/bin/mcp-files", "args": ["--root", "."], "env": {"LOG": "1"}},
            "legacy": {"command": {"path": "mcp-legacy", "args": ["-v"]}},
            "remote": {"url": "https://mcp.example.invalid/mcp", "headers": {"Authorization": "Bearer x"}},
          },
        }""".replace("COMMAND", json.dumps(sys.executable)).replace(
            "ARGS", json.dumps([str(AGENTS / "env_report.py"), str(report)])
        ),
    )
    # The settings come from $XDG_CONFIG_HOME/webclient/settings.json; the agent reads REPORT_MCP_HTTP.
    server = start(agent="Reporter", env={"REPORT_MCP_HTTP": "1"} if http else {})
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"))
    files = {"name": "files", "command": "/usr/bin/mcp-files", "args": ["--root", "."]}
    remote = {"type": "http", "name": "remote", "url": "https://mcp.example.invalid/mcp"}
    assert (await read_report(report))["mcpServers"] == [
        {**files, "env": [{"name": "LOG", "value": "1"}]},
        {"name": "legacy", "command": "mcp-legacy", "args": ["-v"], "env": []},
        *([{**remote, "headers": [{"name": "Authorization", "value": "Bearer x"}]}] if http else []),
    ]


# --- opening a session, and the sidebar --------------------------------------------------------------


async def test_a_prompt_sent_before_session_new_answered_waits_and_is_answered(
    start: Start, tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    server = start(agent=scripted_agent("env_report", str(report), "1.5"))
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"))
    # A second session: its agent is ready, its session/new takes 1.5 s.
    await tab.send(action="new_session")
    await tab.wait_for(lambda html: "/s/s2" in html)  # the tab is told to go to the new session
    second = await open_tab(server, local_id="s2")
    await second.wait_for(status_is("opening"))

    await second.send(action="prompt", text="hello early")
    await second.wait_for(lambda html: "your prompt waits" in html)
    await second.wait_for(turn_finished("hello early"), timeout=30)
    page = Page.parse(second.html)
    assert "reported to report.json" in page.agent_text
    assert not page.notices_with("cannot take a prompt")


def asked_for_the_list_after(server: LiveServer, method: str) -> bool:
    """Whether the client sent `session/list` after the agent's last message of `method` (as the
    session's protocol log, the inspector's download, records it)."""
    lines = http_get(server.base + "/s/s1/inspector.jsonl", headers={"cookie": server.cookie()}).text
    methods = [(r["direction"], r["method"]) for r in map(json.loads, lines.splitlines())]
    marks = [n for n, (direction, name) in enumerate(methods) if name == method]
    return bool(marks) and ("out", "session/list") in methods[marks[-1] + 1 :]


async def test_stored_sessions_are_listed_again_after_each_turn(start: Start, tmp_path: Path) -> None:
    # Each session is listed once: the open one under "Open", the agent's others under "Stored". The list
    # of stored ones is asked for again after every turn, so a title the turn gave shows when it closes.
    server = start(agent=scripted_agent("env_report", str(tmp_path / "report.json")))
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"))
    assert "none yet" in tab.html

    await tab.send(action="prompt", text="Fix the flaky test")
    await tab.wait_for(turn_finished("Fix the flaky test"))
    await eventually(lambda: asked_for_the_list_after(server, "session/prompt"), 20, "session/list")


async def test_stored_sessions_are_listed_again_after_a_session_info_update(
    start: Start, tmp_path: Path
) -> None:
    server = start(agent=scripted_agent("env_report", str(tmp_path / "report.json")))
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"))
    await tab.send(action="prompt", text="rename Flaky test, fixed")
    await tab.wait_for(turn_finished("rename Flaky test, fixed"))
    await tab.wait_for(lambda html: 'aria-current="page">Flaky test, fixed<' in html)  # the sidebar's title
    await eventually(lambda: asked_for_the_list_after(server, "session/update"), 20, "session/list")


# --- sign-in -----------------------------------------------------------------------------------------


async def test_env_var_sign_in_asks_in_the_page_restarts_the_agent_and_remembers_on_request(
    start: Start, tmp_path: Path
) -> None:
    config = tmp_path / "xdg" / "webclient" / "settings.json"
    server = start(agent=scripted_agent("env_sign_in"))
    tab = await open_tab(server)
    await tab.wait_for(status_is("auth-required"))
    await tab.wait_for(lambda html: bool(Page.parse(html).in_auth("auth-env")))
    page = Page.parse(tab.html)
    [field] = page.in_auth("auth-var")
    assert field.attrs["type"] == "password" and field.attrs["name"] == "var.SCRIPTED_API_KEY"
    [command] = page.in_auth("auth-command")
    assert command.text.strip().endswith("env_sign_in.py --login")
    assert [m for m, _ in page.auth_methods] == ["browser"]

    await tab.send(action="sign_in_env", method_id="api-key", **{"var.SCRIPTED_API_KEY": ""})
    await tab.wait_for(has_notice("fill in API key"))

    await tab.send(
        action="sign_in_env", method_id="api-key", remember="on", **{"var.SCRIPTED_API_KEY": "sk-live-9876"}
    )
    await tab.wait_for(status_is("ready"), timeout=30)
    await tab.send(action="prompt", text="who am I")
    await tab.wait_for(turn_finished("who am I"))
    assert "signed in with a key ending 9876" in Page.parse(tab.html).agent_text

    saved = json.loads(config.read_text())
    [entry] = saved["agent_servers"].values()
    assert entry["command"] == sys.executable and entry["args"] == [str(AGENTS / "env_sign_in.py")]
    assert entry["env"] == {"SCRIPTED_API_KEY": "sk-live-9876"}
    assert stat.S_IMODE(config.stat().st_mode) == 0o600

    # The next start with the same command finds the key in the file, and asks nothing.
    again = start(agent=scripted_agent("env_sign_in"))
    tab = await open_tab(again)
    await tab.wait_for(status_is("ready"), timeout=30)
    assert Page.parse(tab.html).in_auth("auth-env") == []


async def test_a_sign_in_that_never_answers_can_be_cancelled_and_restarted(start: Start) -> None:
    server = start(agent=scripted_agent("env_sign_in"))
    tab = await open_tab(server)
    await tab.wait_for(lambda html: len(Page.parse(html).auth_methods) == 1)

    await tab.send(action="authenticate", method_id="browser")
    await tab.wait_for(lambda html: bool(Page.parse(html).in_auth("auth-pending")))
    # Choosing again while the first never answers is allowed, and so is cancelling.
    await tab.send(action="authenticate", method_id="browser")
    await tab.wait_for(lambda html: bool(Page.parse(html).in_auth("auth-pending")))
    await tab.send(action="cancel_sign_in")
    await tab.wait_for(status_is("exited"))
    await tab.wait_for(has_notice("sign-in cancelled"))
    assert Page.parse(tab.html).in_auth("auth-method") == []

    await tab.send(action="restart")
    await tab.wait_for(status_is("auth-required"))
    await tab.wait_for(lambda html: len(Page.parse(html).in_auth("auth-method")) == 1)


async def test_an_env_var_sign_in_is_kept_in_memory_only_without_remember(
    start: Start, tmp_path: Path
) -> None:
    server = start(agent=scripted_agent("env_sign_in"))
    tab = await open_tab(server)
    await tab.wait_for(lambda html: bool(Page.parse(html).in_auth("auth-env")))
    await tab.send(action="sign_in_env", method_id="api-key", **{"var.SCRIPTED_API_KEY": "sk-mem-1234"})
    await tab.wait_for(status_is("ready"), timeout=30)
    assert not (tmp_path / "xdg" / "webclient" / "settings.json").exists()
    await tab.send(action="restart")  # a restart keeps the values given in this server's memory
    await tab.wait_for(has_notice("restarting the agent"))
    await tab.wait_for(status_is("ready"), timeout=30)


async def test_closing_the_last_session_of_an_agent_that_exited_leaves_a_session_to_show(
    workspace: Path, tmp_path: Path
) -> None:
    empty = write_config(tmp_path / "settings.json", "{}")
    settings = Settings(agent=scripted_agent("exits_at_start"), cwd=workspace, config=empty, flush_interval=0)
    async with started(settings) as driver:
        assert driver.state.agent_status is AgentStatus.EXITED
        await driver.registry.close(driver.current.local_id)
        [left] = driver.registry.sessions.values()
        assert left is not driver.current and left.state.agent_status is AgentStatus.EXITED


async def test_each_agent_starts_on_first_use_and_routes_to_its_own_sessions(
    workspace: Path, tmp_path: Path
) -> None:
    config = tmp_path / "settings.json"
    entries = {
        "Echo": {"command": sys.executable, "args": [str(AGENTS / "echo_agent.py")]},
        "Reporter": {
            "command": sys.executable,
            "args": [str(AGENTS / "env_report.py"), str(tmp_path / "r.json")],
        },
    }
    config.write_text(json.dumps({"agent_servers": entries}))
    settings = Settings(agent="Echo", cwd=workspace, config=config, flush_interval=0)
    async with started(settings) as driver:
        registry = driver.registry
        assert list(registry.agents) == ["Echo", "Reporter", "demo"]
        assert not registry.agents["Reporter"].supervisor.started  # not used yet
        other = registry.new_session("Reporter")
        await eventually(lambda: other.state.session_id is not None, 20, "the second agent's session")
        assert (
            registry.agents["Reporter"].supervisor.started and not registry.agents["demo"].supervisor.started
        )
        other.submit_prompt([TextPart(text="hello")])
        driver.current.submit_prompt([TextPart(text="hello")])
        await eventually(
            lambda: other.state.turn is TurnState.IDLE and driver.state.turn is TurnState.IDLE, 20
        )
        assert other.state.agent_label == "Reporter" and "reported to r.json" in agent_text(other.state)
        assert driver.state.agent_label == "Echo" and agent_text(driver.state) == "You said: hello"
        with pytest.raises(Refused, match="no agent 'Nope'"):
            registry.new_session("Nope")


def agent_text(state: SessionState) -> str:
    return "".join(i.text for i in state.items if isinstance(i, MessageItem) and i.role == "agent")


async def test_each_agents_protocol_log_shows_only_in_its_own_sessions(start: Start, tmp_path: Path) -> None:
    entries = {
        "Echo": {"command": sys.executable, "args": [str(AGENTS / "echo_agent.py")]},
        "Reporter": {
            "command": sys.executable,
            "args": [str(AGENTS / "env_report.py"), str(tmp_path / "r.json")],
        },
    }
    config = write_config(tmp_path / "settings.json", json.dumps({"agent_servers": entries}))
    server = start("--config", str(config), agent="Echo")
    cookie = server.cookie()
    tab = await open_tab(server, cookie)
    await tab.wait_for(status_is("ready"))
    await tab.send(action="new_session", agent="Reporter")
    await tab.wait_for(lambda html: "/s/s2" in html)
    other = await open_tab(server, cookie, local_id="s2")
    await other.wait_for(status_is("ready"))

    def log(local_id: str) -> list[dict[str, Any]]:
        response = http_get(f"{server.base}/s/{local_id}/inspector.jsonl", headers={"cookie": cookie})
        return [json.loads(line)["message"] for line in response.text.splitlines()]

    echo, reporter = log("s1"), log("s2")
    assert [m for m in echo if m.get("method") == "initialize"] != []
    assert "env-1" not in json.dumps(echo) and "echo-1" in json.dumps(echo)
    assert "echo-1" not in json.dumps(reporter) and "env-1" in json.dumps(reporter)
    assert len([m for m in reporter if m.get("method") == "initialize"]) == 1


async def test_what_the_agent_still_says_in_a_session_closed_here_is_no_news_for_the_open_ones(
    workspace: Path,
) -> None:
    # An ACP v1 agent has no session/close: closing a session here only stops listening, and the demo
    # agent's slow answer goes on. Its end is for nobody (the inspector still has it), not a notice in
    # every other session of that agent.
    settings = Settings(cwd=workspace, protocol="1", flush_interval=0)
    async with started(settings) as driver:
        registry, first = driver.registry, driver.current
        first.submit_prompt([TextPart(text="slow 40")])
        await eventually(lambda: agent_text(first.state) != "", 20, "the slow answer to start")
        route, closed_id = registry.route(first), first.state.session_id
        other = registry.new_session(route.key)
        await eventually(lambda: other.state.session_id is not None, 20, "a second session")
        await registry.close(first.local_id)

        def updates_of_the_closed_one() -> int:
            sent = (m.get("params") or {} for d, m in route.wire_log.messages() if d == "in")
            return sum(1 for params in sent if params.get("sessionId") == closed_id)

        after_close = updates_of_the_closed_one()
        await eventually(lambda: updates_of_the_closed_one() > after_close, 20, "the agent to go on")
        notices = [i.notice.text for i in other.state.items if isinstance(i, NoticeItem)]
        assert not [text for text in notices if "unknown session" in text]
