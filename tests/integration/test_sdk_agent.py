"""The agent built on the official ACP TypeScript SDK (`tests/peers/sdk_agent.mjs`, one
`AgentProtocolRouter` for v1 and v2), in both versions, over stdio and as a remote agent served by the
SDK's own `AcpServer` (`tests/peers/remote_server.mjs`) in both profiles of ACP's HTTP transport
(WebSocket and Streamable HTTP): the same conversation, suggestion and session tests. What only one
version has is tested below the shared ones."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.driver import SessionDriver, sent, started
from tests.support.polling import eventually
from tests.support.remote_agents import RemoteServer, remote_settings_file, running, sdk_server
from tests.support.sdk_peer import sdk_agent_command
from webclient.acp.models import AgentStatus, TextPart
from webclient.domain.items import MessageItem, PermissionItem, ToolCallItem
from webclient.domain.state import TurnState
from webclient.settings import Settings

TURN_SECONDS = 20


# How the agent is reached: its process's stdio, or the SDK's server's WebSocket or Streamable HTTP.
TRANSPORTS = {"stdio": None, "ws": "ws", "http": "http"}


@pytest.fixture(scope="module")
def sdk_remote(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RemoteServer]:
    """One SDK server for the module's remote tests (each test opens sessions of its own on it)."""
    sdk_agent_command()  # skips (or, in CI, fails) where Node.js or the SDK is missing
    with running(sdk_server(tmp_path_factory.mktemp("sdk-remote") / "sessions.json")) as server:
        yield server


@pytest.fixture(
    params=[(t, v) for t in TRANSPORTS for v in ("1", "2")],
    ids=[f"{t}-v{v}" for t in TRANSPORTS for v in "12"],
)
async def sdk(
    request: pytest.FixtureRequest, workspace: Path, tmp_path: Path
) -> AsyncIterator[SessionDriver]:
    transport, protocol = request.param
    scheme = TRANSPORTS[transport]
    if scheme is None:
        where: dict[str, Any] = {
            "agent": sdk_agent_command(),
            "agent_env": (f"SDK_AGENT_STORE={tmp_path / 'sessions.json'}",),
        }
    else:  # on loopback, as trusted as a local agent: the same tests, terminals included
        server: RemoteServer = request.getfixturevalue("sdk_remote")
        config = remote_settings_file(
            tmp_path / "settings.json", server.url(scheme), token=None, local_tools=True
        )
        where = {"agent": "remote", "config": config}
    settings = Settings(cwd=workspace, flush_interval=0, protocol=protocol, **where)
    async with started(settings) as driver:
        await eventually(lambda: driver.state.session_id is not None, TURN_SECONDS, "the session to open")
        yield driver


async def run(driver: SessionDriver, text: str) -> None:
    driver.submit_prompt([TextPart(text=text)])
    await eventually(lambda: driver.state.turn is not TurnState.IDLE or _ended(driver, text), 5, "the turn")
    await eventually(lambda: driver.state.turn is TurnState.IDLE, TURN_SECONDS, f"the turn {text!r} to end")


def _ended(driver: SessionDriver, text: str) -> bool:
    return any(m.text == text for m in messages(driver, "user"))


def messages(driver: SessionDriver, role: str | None = None) -> list[MessageItem]:
    return [i for i in driver.state.items if isinstance(i, MessageItem) and role in (None, i.role)]


def pending_permission(driver: SessionDriver) -> PermissionItem | None:
    return next(
        (i for i in driver.state.items if isinstance(i, PermissionItem) and i.state.value == "pending"), None
    )


def version(driver: SessionDriver) -> int:
    version = driver.state.protocol_version
    assert version in (1, 2)
    return version


# --- the conversation -------------------------------------------------------------------------------


async def test_the_sdk_agent_speaks_the_version_asked_for_and_names_itself(sdk: SessionDriver) -> None:
    assert sdk.state.agent_status is AgentStatus.READY
    initialize = [m for d, m in sdk.wire_log if d == "in" and "result" in m and m.get("id") == 0]
    answer: dict[str, Any] = initialize[0]["result"] if initialize else {}
    assert answer.get("protocolVersion") == version(sdk)
    info = answer.get("agentInfo") if version(sdk) == 1 else answer.get("info")
    assert info == {"name": "sdk-test-agent", "title": "SDK test agent", "version": "2.4.0"}


async def test_a_turn_streams_the_reply_and_ends(sdk: SessionDriver) -> None:
    await run(sdk, "hello")
    assert [m.text for m in messages(sdk, "user")] == ["hello"]
    assert [m.text for m in messages(sdk, "agent")] == ["You said: hello"]
    await run(sdk, "and again")
    assert [m.text for m in messages(sdk, "agent")] == ["You said: hello", "You said: and again"]


async def test_a_tool_call_completes_with_its_content(sdk: SessionDriver) -> None:
    await run(sdk, "use a tool")
    cards = [i for i in sdk.state.items if isinstance(i, ToolCallItem)]
    assert [(c.title, c.kind, c.status) for c in cards] == [("Read notes.txt", "read", "completed")]
    assert [getattr(c.content, "text", None) for c in cards[0].content] == ["notes: three lines"]
    assert [m.text for m in messages(sdk, "agent")] == ["I read notes.txt."]


@pytest.mark.parametrize(
    "option, reply", [("allow", "Edited notes.txt."), ("reject", "I did not edit notes.txt.")]
)
async def test_a_permission_request_is_answered_with_the_option_chosen(
    sdk: SessionDriver, option: str, reply: str
) -> None:
    sdk.submit_prompt([TextPart(text="permission")])
    await eventually(lambda: pending_permission(sdk) is not None, TURN_SECONDS, "the permission request")
    item = pending_permission(sdk)
    assert item is not None and [o.id for o in item.request.options] == ["allow", "reject"]
    sdk.current.answer_permission(item.id, option)
    await eventually(lambda: sdk.state.turn is TurnState.IDLE, TURN_SECONDS, "the turn to end")
    assert messages(sdk, "agent")[-1].text == reply


async def test_a_terminal_shows_what_the_command_printed(sdk: SessionDriver) -> None:
    await run(sdk, "terminal")
    assert messages(sdk, "agent")[-1].text == "The terminal said: hello from the terminal"
    shown = list(sdk.state.terminals.values())
    assert len(shown) == 1 and shown[0].output.strip() == "hello from the terminal"
    assert shown[0].exit is not None and shown[0].exit.exit_code == 0


async def test_cancel_stops_a_running_turn(sdk: SessionDriver) -> None:
    sdk.submit_prompt([TextPart(text="slow")])
    await eventually(lambda: bool(messages(sdk, "agent")), TURN_SECONDS, "the slow reply to start")
    await sdk.cancel()
    await eventually(lambda: sdk.state.turn is TurnState.IDLE, TURN_SECONDS, "the cancelled turn to end")
    assert sent(sdk, "session/cancel")
    await run(sdk, "after")
    assert messages(sdk, "agent")[-1].text == "You said: after"


# --- suggestions --------------------------------------------------------------------------------------


async def test_suggestions_arrive_after_a_turn_and_a_chosen_one_is_sent_as_the_next_prompt(
    sdk: SessionDriver,
) -> None:
    await run(sdk, "hello")
    await eventually(
        lambda: [s.text for s in sdk.state.suggestions] == ["Tell me more", "Use a tool"],
        TURN_SECONDS,
        "the suggestions",
    )
    generation = sdk.state.suggestions_generation
    sdk.send_suggestion(generation, 0)
    await eventually(lambda: len(messages(sdk, "agent")) == 2, TURN_SECONDS, "the suggested turn")
    assert [m.text for m in messages(sdk, "user")] == ["hello", "Tell me more"]
    await eventually(lambda: sdk.state.turn is TurnState.IDLE, TURN_SECONDS, "the suggested turn to end")


async def test_a_cancelled_turn_withdraws_the_suggestions(sdk: SessionDriver) -> None:
    await run(sdk, "hello")
    await eventually(lambda: bool(sdk.state.suggestions), TURN_SECONDS, "the suggestions")
    sdk.submit_prompt([TextPart(text="slow")])
    await eventually(lambda: len(messages(sdk, "agent")) == 2, TURN_SECONDS, "the slow reply to start")
    await sdk.cancel()
    await eventually(lambda: sdk.state.turn is TurnState.IDLE, TURN_SECONDS, "the cancelled turn to end")
    await eventually(lambda: sdk.state.suggestions == (), TURN_SECONDS, "the withdrawn suggestions")


async def test_without_the_capability_no_suggestion_is_sent(workspace: Path, tmp_path: Path) -> None:
    for protocol in ("1", "2"):
        settings = Settings(
            agent=sdk_agent_command(),
            cwd=workspace,
            flush_interval=0,
            protocol=protocol,
            prompt_suggestions=False,
        )
        async with started(settings) as driver:
            await eventually(lambda: driver.state.session_id is not None, TURN_SECONDS, "the session")
            await run(driver, "hello")
            updates = [
                m
                for d, m in driver.wire_log
                if d == "in" and "prompt_suggestions_update" in str(m.get("params"))
            ]
            assert updates == [] and driver.state.suggestions == ()


# --- sessions -----------------------------------------------------------------------------------------


async def test_stored_sessions_are_listed_and_one_comes_back_with_its_history(sdk: SessionDriver) -> None:
    await run(sdk, "first question")
    first = sdk.state.session_id
    assert first is not None
    second = sdk.registry.new_session()
    await eventually(lambda: second.state.session_id is not None, TURN_SECONDS, "a second session")
    await sdk.registry.close(sdk.current.local_id)
    sdk.current = second
    await eventually(
        lambda: first in [s.session_id for s in sdk.state.sidebar.stored], TURN_SECONDS, "the stored session"
    )
    await sdk.load_session(first)
    await eventually(lambda: len(messages(sdk)) == 2, TURN_SECONDS, "the replayed history")
    assert [(m.role, m.text) for m in messages(sdk)] == [
        ("user", "first question"),
        ("agent", "You said: first question"),
    ]
    await run(sdk, "follow-up")
    assert messages(sdk, "agent")[-1].text == "You said: follow-up"


async def test_resume_without_history_reattaches_a_closed_session(sdk: SessionDriver) -> None:
    await run(sdk, "remember me")
    first = sdk.state.session_id
    assert first is not None
    second = sdk.registry.new_session()
    await eventually(lambda: second.state.session_id is not None, TURN_SECONDS, "a second session")
    await sdk.registry.close(sdk.current.local_id)
    sdk.current = second
    await eventually(lambda: sdk.state.sidebar.can_resume, TURN_SECONDS, "resume to be offered")
    await sdk.load_session(first, resume=True)
    assert sent(sdk, "session/resume")[-1]["sessionId"] == first
    assert messages(sdk) == []
    await run(sdk, "still here")
    assert messages(sdk, "agent")[-1].text == "You said: still here"


async def test_closing_a_session_sends_session_close(sdk: SessionDriver) -> None:
    session_id = sdk.state.session_id
    await sdk.close()
    assert sent(sdk, "session/close") == [{"sessionId": session_id}]


async def test_a_stored_session_is_deleted(sdk: SessionDriver) -> None:
    await run(sdk, "delete me later")
    doomed = sdk.state.session_id
    assert doomed is not None
    other = sdk.registry.new_session()
    await eventually(lambda: other.state.session_id is not None, TURN_SECONDS, "a second session")
    await sdk.registry.close(sdk.current.local_id)
    sdk.current = other
    await eventually(
        lambda: doomed in [s.session_id for s in sdk.state.sidebar.stored], TURN_SECONDS, "listed"
    )
    assert sdk.state.sidebar.can_delete
    await sdk.registry.delete_stored(doomed, sdk.current.agent_key)
    assert sent(sdk, "session/delete") == [{"sessionId": doomed}]
    await eventually(
        lambda: doomed not in [s.session_id for s in sdk.state.sidebar.stored],
        TURN_SECONDS,
        "the deleted session",
    )
