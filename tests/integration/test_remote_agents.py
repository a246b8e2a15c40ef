"""Agents on other machines, over ACP's HTTP transport, against real servers on loopback.

`acpremote` (PyPI) serves the demo agent, or a scripted agent, over WebSocket, one agent process per
connection, as a team would run it beside an agent. What is tested: the conversation and suggestions
through it, the trust boundary (no local files, no terminals unless the settings allow them), the errors
of an endpoint that refuses, and a server killed mid-turn and started again.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

import pytest

from tests.support.driver import SessionDriver, answers, sent, turn
from tests.support.html import Page, status_is, turn_finished
from tests.support.live import agent_argv, http_get, open_tab, run_server
from tests.support.polling import eventually
from tests.support.remote_agents import (
    TOKEN,
    RemoteServer,
    acpremote,
    acpremote_demo,
    remote_settings_file,
    running,
    sdk_server,
)
from tests.support.sdk_peer import sdk_agent_command
from webclient.acp.models import AgentStatus, TextPart
from webclient.agent_config import ConfigError
from webclient.domain import reconnect
from webclient.domain.items import MessageItem, NoticeItem
from webclient.domain.state import TurnState
from webclient.settings import Settings

# Whole processes driven from outside: `make test` runs it, `make test-fast` leaves it out.
pytestmark = pytest.mark.system

FAST = {"WEBCLIENT_DEMO_CHUNK_DELAY_MS": "0"}


@pytest.fixture(autouse=True)
def _token(monkeypatch: pytest.MonkeyPatch) -> None:
    """The secret the settings files read as ${ACP_TEST_TOKEN}: webclient's environment, not the file."""
    monkeypatch.setenv("ACP_TEST_TOKEN", TOKEN)


@asynccontextmanager
async def driving(
    tmp_path: Path,
    url: str,
    *,
    token: str | None = TOKEN,
    local_tools: bool | None = None,
    protocol: Literal["1", "2"] = "1",
    cwd: Path | None = None,
) -> AsyncIterator[SessionDriver]:
    config = remote_settings_file(
        tmp_path / "settings.json", url, token=token, local_tools=local_tools, cwd=cwd
    )
    settings = Settings(
        agent="remote",
        config=config,
        cwd=tmp_path,
        flush_interval=0,
        initialize_timeout=60,  # agent start-up on a loaded machine, as elsewhere in the suite
        protocol=protocol,
    )
    driver = SessionDriver(settings)
    await driver.start()
    try:
        yield driver
    finally:
        await driver.shutdown()


async def ready(driver: SessionDriver) -> None:
    await eventually(
        lambda: driver.state.agent_status is AgentStatus.READY and driver.state.session_id is not None,
        90,
        "the remote agent ready, with a session",
        lambda: "; ".join(notices(driver)),
    )


def notices(driver: SessionDriver) -> list[str]:
    return [i.notice.text for i in driver.state.items if isinstance(i, NoticeItem)]


def messages(driver: SessionDriver, role: str) -> list[str]:
    return [i.text for i in driver.state.items if isinstance(i, MessageItem) and i.role == role]


@pytest.fixture
def demo(tmp_path: Path) -> Any:
    return acpremote_demo(tmp_path / "state", tmp_path, token=TOKEN, env=FAST)


@pytest.mark.parametrize("protocol", ["1", "2"], ids=["v1", "v2"])
async def test_the_demo_agent_over_acpremote_answers_and_suggests(
    tmp_path: Path, demo: RemoteServer, protocol: Literal["1", "2"]
) -> None:
    with running(demo):
        async with driving(tmp_path, demo.url(), protocol=protocol) as driver:
            await ready(driver)
            await turn(driver, "help")

            assert driver.state.protocol_version == int(protocol)
            assert messages(driver, "agent")[-1].strip()
            await eventually(lambda: len(driver.state.suggestions) == 4, 20, "the demo's four suggestions")
            assert driver.state.suggestions[0].blocks[0].part == TextPart(text="List files")
            assert any("runs on another machine" in text for text in notices(driver))


async def test_a_remote_agent_is_offered_no_files_and_no_terminals_unless_allowed(
    tmp_path: Path, demo: RemoteServer
) -> None:
    with running(demo):
        async with driving(tmp_path, demo.url()) as driver:
            await ready(driver)
            [init] = sent(driver, "initialize")
            assert "fs" not in init["clientCapabilities"] and "terminal" not in init["clientCapabilities"]
            assert "promptSuggestions" in init["clientCapabilities"]["session"]
            assert any("cannot read or write files here or run commands here" in t for t in notices(driver))
        async with driving(tmp_path, demo.url(), local_tools=True) as driver:
            await ready(driver)
            [init] = sent(driver, "initialize")
            assert init["clientCapabilities"]["fs"] == {"readTextFile": True, "writeTextFile": True}
            assert init["clientCapabilities"]["terminal"] is True
            assert any("may read and write files here and run commands here" in t for t in notices(driver))


async def ask(driver: SessionDriver, text: str) -> dict[str, Any]:
    before = len(answers(driver))
    driver.submit_prompt([TextPart(text=text)])
    await eventually(lambda: len(answers(driver)) > before, 30, f"the answer to {text!r}")
    await eventually(lambda: driver.state.turn is TurnState.IDLE, 30, f"the turn of {text!r} to end")
    return answers(driver)[-1]


async def test_a_remote_agents_file_requests_are_refused_by_default_and_served_with_local_tools(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes.txt").write_text("local secret\n", encoding="utf-8")
    server = acpremote(agent_argv("asks_client"), tmp_path, token=TOKEN)
    with running(server):
        async with driving(tmp_path, server.url()) as driver:
            await ready(driver)
            read = await ask(driver, f"read {tmp_path / 'notes.txt'}")
            assert read["error"]["code"] == -32601
            assert "local secret" not in str(read)
            write = await ask(driver, f"write {tmp_path / 'new.txt'} written remotely")
            assert write["error"]["code"] == -32601
            assert not (tmp_path / "new.txt").exists()
            assert any(
                "declined the remote agent's request to read the local file" in t for t in notices(driver)
            )
        async with driving(tmp_path, server.url(), local_tools=True) as driver:
            await ready(driver)
            read = await ask(driver, f"read {tmp_path / 'notes.txt'}")
            assert read == {"result": {"content": "local secret\n"}}


async def test_a_remote_agents_terminal_requests_are_refused_by_default(tmp_path: Path) -> None:
    server = acpremote(agent_argv("uses_terminals"), tmp_path, token=TOKEN)
    marker = tmp_path / "ran"
    steps = f'[{{"call": "terminal/create", "params": {{"command": "touch", "args": ["{marker}"]}}}}]'
    with running(server):
        async with driving(tmp_path, server.url()) as driver:
            await ready(driver)
            driver.submit_prompt([TextPart(text=steps)])
            await eventually(
                lambda: any(t.startswith("ANSWER") for t in messages(driver, "agent")), 30, "the answer"
            )
            assert '"code": -32601' in messages(driver, "agent")[-1]
            assert not marker.exists()
            assert any("declined the remote agent's request to run 'touch'" in t for t in notices(driver))


async def failure(driver: SessionDriver) -> str:
    await eventually(lambda: driver.state.agent_status is AgentStatus.EXITED, 60, "the agent to fail")
    return "\n".join(notices(driver))


async def test_a_wrong_token_is_a_clear_unauthorized_error(tmp_path: Path, demo: RemoteServer) -> None:
    with running(demo):
        async with driving(tmp_path, demo.url(), token=None) as driver:
            assert "refused the credentials (HTTP 401 Unauthorized)" in await failure(driver)


async def test_nothing_listening_is_a_clear_connection_refused_error(
    tmp_path: Path, demo: RemoteServer
) -> None:
    async with driving(tmp_path, demo.url()) as driver:  # never started
        text = await failure(driver)
        assert f"could not connect to the remote agent at {demo.url()}: connection refused" in text


async def test_a_path_that_is_no_acp_endpoint_is_a_clear_error(tmp_path: Path, demo: RemoteServer) -> None:
    with running(demo):
        async with driving(tmp_path, demo.url().replace("/acp/ws", "/elsewhere")) as driver:
            assert "answered HTTP 404 Not Found instead of a WebSocket upgrade" in await failure(driver)


async def test_an_http_url_to_a_websocket_only_server_is_a_clear_wrong_protocol_error(
    tmp_path: Path, demo: RemoteServer
) -> None:
    with running(demo):
        async with driving(tmp_path, demo.url("http")) as driver:
            assert "it is not a Streamable HTTP endpoint of ACP" in await failure(driver)


async def test_an_unset_variable_in_the_headers_is_a_settings_error_that_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ACP_TEST_TOKEN")
    config = remote_settings_file(tmp_path / "settings.json", "ws://127.0.0.1:1/acp", token=TOKEN)
    settings = Settings(agent="remote", config=config, cwd=tmp_path)
    with pytest.raises(ConfigError, match=r"headers\.Authorization: the environment variable ACP_TEST_TOKEN"):
        _ = settings.catalog


async def test_the_sdk_agents_terminal_request_over_streamable_http_is_refused_by_default(
    tmp_path: Path,
) -> None:
    sdk_agent_command()  # skips (or, in CI, fails) where Node.js or the SDK is missing
    with running(sdk_server(tmp_path / "sessions.json", token=TOKEN)) as server:
        async with driving(tmp_path, server.url("http")) as driver:
            await ready(driver)
            driver.submit_prompt([TextPart(text="terminal")])
            await eventually(lambda: driver.state.turn is TurnState.IDLE, 30, "the turn to end")
            assert driver.state.terminals == {}
            assert any("declined the remote agent's request to run 'echo'" in t for t in notices(driver))
            assert not any("hello from the terminal" in text for text in messages(driver, "agent"))


# The servers a reconnect is tested with: acpremote with the demo agent (WebSocket), the SDK's server with
# the SDK agent (both profiles); and what makes a turn that runs until it is interrupted.
KILLED: dict[str, tuple[str, str]] = {
    "acpremote-ws": ("ws", "count to 200"),
    "sdk-ws": ("ws", "slow"),
    "sdk-http": ("http", "slow"),
}


def killable(name: str, tmp_path: Path) -> RemoteServer:
    if name.startswith("sdk"):
        sdk_agent_command()
        return sdk_server(tmp_path / "sessions.json", token=TOKEN)
    return acpremote_demo(
        tmp_path / "state", tmp_path, token=TOKEN, env={"WEBCLIENT_DEMO_CHUNK_DELAY_MS": "40"}
    )


@pytest.mark.parametrize("protocol", ["1", "2"], ids=["v1", "v2"])
@pytest.mark.parametrize("name", list(KILLED))
async def test_a_server_killed_mid_turn_and_started_again_is_reconnected_and_the_session_resumed(
    tmp_path: Path, name: str, protocol: Literal["1", "2"]
) -> None:
    scheme, long_turn = KILLED[name]
    server = killable(name, tmp_path)
    with running(server):
        async with driving(tmp_path, server.url(scheme), protocol=protocol) as driver:
            await ready(driver)
            await turn(driver, "my name is Ada")
            session_id = driver.state.session_id
            replies = len(messages(driver, "agent"))
            driver.submit_prompt([TextPart(text=long_turn)])
            await eventually(lambda: len(messages(driver, "agent")) > replies, 30, "the long turn under way")

            server.kill()
            await eventually(
                lambda: driver.state.agent_status is AgentStatus.RECONNECTING,
                30,
                "the page to say reconnecting",
            )
            await eventually(lambda: driver.state.turn is TurnState.IDLE, 30, "the interrupted turn to end")
            assert any(t.startswith("lost the connection to the remote agent") for t in notices(driver))
            shown = messages(driver, "user")

            server.start()
            await eventually(lambda: driver.state.agent_status is AgentStatus.READY, 90, "reconnected")
            await eventually(lambda: driver.state.session_id == session_id, 30, "the same session again")
            assert messages(driver, "user") == shown  # the agent's replay is not shown a second time
            assert any("the session goes on" in t for t in notices(driver))
            await turn(driver, "hello again")
            assert driver.state.session_id == session_id
            assert messages(driver, "agent")[-1].strip()


async def test_reconnect_now_tries_at_once_and_the_session_still_goes_on(
    tmp_path: Path, demo: RemoteServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reconnect, "RECONNECT_FIRST_DELAY", 600.0)  # left alone, the next try is far off
    with running(demo):
        async with driving(tmp_path, demo.url()) as driver:
            await ready(driver)
            await turn(driver, "remember this")  # a session is stored once it was used
            session_id = driver.state.session_id
            demo.kill()
            await eventually(
                lambda: driver.state.agent_status is AgentStatus.RECONNECTING, 30, "reconnecting"
            )
            demo.start()
            await driver.restart()  # what the page's "Reconnect now" sends
            await eventually(
                lambda: driver.state.agent_status is AgentStatus.READY, 30, "reconnected at once"
            )
            await eventually(lambda: driver.state.session_id == session_id, 30, "the same session again")
            assert not any(t.startswith("restarting the agent") for t in notices(driver))


async def test_a_remote_agents_sessions_get_the_working_directory_of_its_own_machine(
    tmp_path: Path, demo: RemoteServer
) -> None:
    there = tmp_path / "on-the-build-box"
    there.mkdir()
    (there / "only-there.txt").write_text("remote file\n", encoding="utf-8")
    with running(demo):
        async with driving(tmp_path, demo.url(), cwd=there) as driver:
            await ready(driver)
            assert [p["cwd"] for p in sent(driver, "session/new")] == [str(there)]
            await turn(driver, "list files")
            assert "only-there.txt" in messages(driver, "agent")[-1]


async def test_a_session_the_restarted_server_no_longer_knows_goes_on_in_a_new_one(
    tmp_path: Path, demo: RemoteServer
) -> None:
    with running(demo):
        async with driving(tmp_path, demo.url()) as driver:
            await ready(driver)
            await turn(driver, "remember this")
            session_id = driver.state.session_id
            demo.kill()
            await eventually(
                lambda: driver.state.agent_status is AgentStatus.RECONNECTING, 30, "reconnecting"
            )
            demo.env = {**demo.env, "WEBCLIENT_DEMO_STATE_DIR": str(tmp_path / "a-new-machine")}
            demo.start()
            await eventually(
                lambda: (
                    driver.state.agent_status is AgentStatus.READY and driver.state.session_id is not None
                ),
                60,
                "reconnected, in a session",
            )
            assert driver.state.session_id != session_id
            assert any("reconnected, but the session could not be resumed" in t for t in notices(driver))
            assert messages(driver, "user") == ["remember this"]  # the conversation stays on the page
            await turn(driver, "still there?")
            assert messages(driver, "agent")[-1].strip()


async def test_a_remote_agents_lone_surrogates_are_made_valid_and_its_pages_still_load(
    tmp_path: Path,
) -> None:
    # What a stdio agent's lines get (webclient/acp/wire_values.py), a remote agent's frames get too: half
    # an emoji in a title used to make every page answer 500.
    remote = acpremote(agent_argv("broken_text"), tmp_path, token=TOKEN)
    config = remote_settings_file(tmp_path / "settings.json", remote.url(), token=TOKEN)
    args = ("--config", str(config))
    with (
        running(remote),
        run_server("remote", cwd=tmp_path, extra_args=args, env={"ACP_TEST_TOKEN": TOKEN}) as server,
    ):
        tab = await open_tab(server)
        await tab.wait_for(status_is("ready"), timeout=60)
        await tab.send(action="prompt", text="go")
        await tab.wait_for(turn_finished("go"), timeout=60)
        await tab.wait_for(lambda html: "\ufffd title" in html)
        assert "cut here \ufffd, and here \ufffd." in Page.parse(tab.html).texts("agent")
        page = http_get(server.base + "/s/s1", headers={"cookie": server.cookie()}, timeout=30)
        assert page.status_code == 200, page.text[:500]
        assert "\ufffd title" in page.text and "stored \ufffd" in page.text
