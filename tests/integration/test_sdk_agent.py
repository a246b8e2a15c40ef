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

from tests.support.acp_schema import errors, methods
from tests.support.driver import SessionDriver, sent, started
from tests.support.polling import eventually
from tests.support.remote_agents import RemoteServer, remote_settings_file, running, sdk_server
from tests.support.sdk_peer import sdk_agent_command
from webclient.acp.models import AgentStatus, Notice, NoticeLevel, TextPart
from webclient.domain.items import MessageItem, NoticeItem, PermissionItem, ToolCallItem
from webclient.domain.state import TurnState
from webclient.domain.stopping import stop_work
from webclient.errors import Refused
from webclient.settings import Settings

# Whole processes driven from outside: `make test` runs it, `make test-fast` leaves it out.
pytestmark = pytest.mark.system

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


# --- what only the v2 draft has ------------------------------------------------------------------------


@pytest.fixture
async def sdk_v2(workspace: Path) -> AsyncIterator[SessionDriver]:
    settings = Settings(agent=sdk_agent_command(), cwd=workspace, flush_interval=0, protocol="2")
    async with started(settings) as driver:
        await eventually(lambda: driver.state.session_id is not None, TURN_SECONDS, "the session to open")
        yield driver


def notices(driver: SessionDriver) -> list[Notice]:
    return [n for i in driver.state.items if isinstance(i, NoticeItem) for n in i.all]


async def test_the_agents_notice_shows_with_its_severity_title_and_description(sdk_v2: SessionDriver) -> None:
    await run(sdk_v2, "notice")
    [notice] = [n for n in notices(sdk_v2) if n.from_agent]
    assert (notice.level, notice.text) == (NoticeLevel.WARNING, "Rate limit close")
    assert notice.description == "80% of this hour's requests are used."
    assert not any("unknown type" in n.text for n in notices(sdk_v2))


async def test_a_compaction_shows_while_it_runs_and_ends_with_its_summary(sdk_v2: SessionDriver) -> None:
    await run(sdk_v2, "compact")
    assert not sdk_v2.state.activity.compacting
    [done] = [n for n in notices(sdk_v2) if "compacted" in n.text]
    assert done.level is NoticeLevel.INFO and done.detail == "The user said hello. The agent answered."
    assert messages(sdk_v2, "agent")[-1].text == "I compacted the conversation."


async def test_an_error_stop_reason_says_what_failed_with_its_data(sdk_v2: SessionDriver) -> None:
    await run(sdk_v2, "fail")
    [failed] = [n for n in notices(sdk_v2) if n.text.startswith("the turn failed")]
    assert failed.level is NoticeLevel.ERROR and "The model provider failed" in failed.text
    assert failed.detail is not None and '"retryAfter": 30' in failed.detail
    await run(sdk_v2, "after the failure")
    assert messages(sdk_v2, "agent")[-1].text == "You said: after the failure"


async def test_background_work_is_listed_and_each_piece_stops_with_its_own_cancel(
    sdk_v2: SessionDriver,
) -> None:
    await run(sdk_v2, "background")
    work = sdk_v2.state.activity.background
    assert [w.kind for w in work] == ["terminal", "tool_call"]
    terminal, tool = work[0].id, work[1].id
    assert sdk_v2.state.terminals[terminal].cancellable
    card = sdk_v2.state.tool_card(tool)
    assert card is not None and card.stoppable
    await eventually(lambda: "line 1" in sdk_v2.state.terminals[terminal].output, TURN_SECONDS, "its output")

    await stop_work(sdk_v2.current, "terminal", terminal)
    assert sent(sdk_v2, "terminal/cancel") == [{"sessionId": sdk_v2.state.session_id, "terminalId": terminal}]
    await eventually(
        lambda: sdk_v2.state.terminals[terminal].exit is not None, TURN_SECONDS, "the terminal's exit"
    )
    await stop_work(sdk_v2.current, "tool_call", tool)
    assert sent(sdk_v2, "tool_call/cancel") == [{"sessionId": sdk_v2.state.session_id, "toolCallId": tool}]
    await eventually(lambda: sdk_v2.state.activity.background == (), TURN_SECONDS, "no background work")
    assert card.status == "cancelled" and not card.stoppable
    with pytest.raises(Refused, match="cannot be stopped"):
        await stop_work(sdk_v2.current, "tool_call", tool)  # it ended: nothing goes out
    assert len(sent(sdk_v2, "tool_call/cancel")) == 1


async def test_a_tool_call_the_agent_does_not_let_stop_is_not_stopped(sdk_v2: SessionDriver) -> None:
    await run(sdk_v2, "use a tool")
    card = next(i for i in sdk_v2.state.items if isinstance(i, ToolCallItem))
    with pytest.raises(Refused, match="cannot be stopped"):
        await stop_work(sdk_v2.current, "tool_call", card.tool_call_id)
    assert sent(sdk_v2, "tool_call/cancel") == []


async def test_the_commands_of_a_v2_session_come_with_its_answer(sdk_v2: SessionDriver) -> None:
    assert [(c.name, c.input_hint) for c in sdk_v2.state.commands] == [("review", "what to review")]


async def test_an_elicitation_is_refused_and_said(sdk_v2: SessionDriver) -> None:
    await run(sdk_v2, "elicit")
    assert messages(sdk_v2, "agent")[-1].text == "elicitation refused: -32601"
    assert any("elicitation/create" in n.text for n in notices(sdk_v2))


async def test_the_jetbrains_air_marker_goes_in_the_v2_capabilities_meta(workspace: Path) -> None:
    settings = Settings(
        agent=sdk_agent_command(), cwd=workspace, flush_interval=0, protocol="2", jetbrains_air=True
    )
    async with started(settings) as driver:
        [params] = sent(driver, "initialize")
        assert params["capabilities"]["_meta"] == {"jetbrains": {"air": {}}}
        assert driver.state.protocol_version == 2


async def test_every_message_we_send_in_a_v2_conversation_is_valid_by_the_sdks_schema(
    sdk_v2: SessionDriver,
) -> None:
    driver = sdk_v2
    await run(driver, "hello")
    driver.submit_prompt([TextPart(text="permission")])
    await eventually(lambda: pending_permission(driver) is not None, TURN_SECONDS, "the permission request")
    item = pending_permission(driver)
    assert item is not None
    driver.current.answer_permission(item.id, "allow")
    await eventually(lambda: driver.state.turn is TurnState.IDLE, TURN_SECONDS, "the turn to end")
    await run(driver, "background")
    for work in driver.state.activity.background:
        await stop_work(driver.current, work.kind, work.id)  # type: ignore[arg-type]  # terminal, tool_call
    driver.submit_prompt([TextPart(text="slow")])
    await eventually(
        lambda: messages(driver, "agent")[-1].text.startswith("1"), TURN_SECONDS, "the slow turn"
    )
    await driver.cancel()
    await eventually(lambda: driver.state.turn is TurnState.IDLE, TURN_SECONDS, "the cancelled turn")
    first = driver.state.session_id
    assert first is not None
    other = driver.registry.new_session()
    await eventually(lambda: other.state.session_id is not None, TURN_SECONDS, "a second session")
    await driver.registry.close(driver.current.local_id)
    driver.current = other
    await eventually(
        lambda: first in [s.session_id for s in driver.state.sidebar.stored], TURN_SECONDS, "listed"
    )
    await driver.load_session(first)
    await driver.registry.close(driver.current.local_id)
    await driver.registry.delete_stored(first, driver.current.agent_key)

    requests = methods("agent", "Request")
    notifications = methods("agent", "Notification") | methods("protocol", "Notification")
    responses = methods("client", "Response")
    asked = {m["id"]: m["method"] for d, m in driver.wire_log if d == "in" and "method" in m and "id" in m}
    checked: set[str] = set()
    for direction, message in driver.wire_log:
        if direction != "out":
            continue
        method = message.get("method")
        if method is not None:
            name = (requests if "id" in message else notifications)[method]
            found = errors(name, message.get("params"))
        elif "result" in message:
            method = asked[message["id"]]
            found = errors(responses[method], message["result"])
        else:
            continue  # an error answer (elicitation refused): JSON-RPC's shape, not ACP's
        assert found == [], f"{method}: {found}"
        checked.add(method)
    expected = {"initialize", "session/new", "session/prompt", "session/request_permission", "session/cancel"}
    expected |= {"terminal/cancel", "tool_call/cancel", "session/list", "session/close", "session/resume"}
    assert expected | {"session/delete"} <= checked, checked


async def test_a_session_the_agent_does_not_have_is_said_in_plain_words(sdk_v2: SessionDriver) -> None:
    with pytest.raises(Refused, match="the agent has no session 'gone-1'"):
        await sdk_v2.load_session("gone-1")
    assert sent(sdk_v2, "session/resume")[-1]["sessionId"] == "gone-1"
