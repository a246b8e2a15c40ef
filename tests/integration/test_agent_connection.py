"""`AgentConnection` against real agent subprocesses, well-behaved and misbehaving, with a recording
listener instead of the runtime."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.live import agent_argv
from tests.support.polling import eventually
from tests.support.processes import pid_alive, read_pids, reaped
from webclient.acp.answers import AUTH_REQUIRED
from webclient.acp.capabilities import initialize_params
from webclient.acp.models import (
    MessageChunk,
    Notice,
    PermissionOutcome,
    PermissionRequest,
    PromptBlock,
    SessionInfoEvent,
    TerminalExit,
    TerminalOutput,
    TerminalRequest,
    TextPart,
    ToolCallEvent,
    Translation,
    TurnAnswered,
)
from webclient.acp.process import AgentProcess
from webclient.acp.v1.connection import AgentConnection
from webclient.errors import (
    AgentExitedError,
    AgentRequestError,
    AgentStartError,
    AgentTimeoutError,
    RequestRefused,
)

PROMPT = [PromptBlock(part=TextPart(text="hello agent"))]


def _nothing_here() -> RequestRefused:
    return RequestRefused(RequestRefused.RESOURCE_NOT_FOUND, "this client has no files or terminals")


class Recorder:
    """An `AgentListener` that keeps everything it is told."""

    def __init__(self) -> None:
        self.translations: list[Translation] = []
        self.notices: list[Notice] = []
        self.wire: list[tuple[str, dict[str, Any]]] = []
        self.permission_requests: list[PermissionRequest] = []
        self.permission_outcome = PermissionOutcome(option_id="allow")
        self.versions: list[int] = []
        self.notes: list[str] = []

    def on_update(self, translation: Translation) -> None:
        self.translations.append(translation)

    def on_notice(self, notice: Notice) -> None:
        self.notices.append(notice)

    def on_wire(self, direction: str, message: dict[str, Any], version: int) -> None:
        self.wire.append((direction, message))
        self.versions.append(version)

    def on_wire_note(self, text: str) -> None:
        self.notes.append(text)

    async def request_permission(self, request: PermissionRequest) -> PermissionOutcome:
        self.permission_requests.append(request)
        return self.permission_outcome

    # No file system and no terminals: the agents these tests run ask for neither.
    async def read_text_file(self, session_id: str, path: str, line: int | None, limit: int | None) -> str:
        raise _nothing_here()

    async def write_text_file(self, session_id: str, path: str, content: str) -> None:
        raise _nothing_here()

    async def create_terminal(self, request: TerminalRequest) -> str:
        raise _nothing_here()

    def terminal_output(self, session_id: str, terminal_id: str) -> TerminalOutput:
        raise _nothing_here()

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str) -> TerminalExit:
        raise _nothing_here()

    def kill_terminal(self, session_id: str, terminal_id: str) -> None:
        raise _nothing_here()

    def release_terminal(self, session_id: str, terminal_id: str) -> None:
        raise _nothing_here()

    @property
    def events(self) -> list[Any]:
        return [event for t in self.translations for event in t.events]

    @property
    def update_notices(self) -> list[Notice]:
        return [event for event in self.events if isinstance(event, Notice)]

    @property
    def agent_text(self) -> str:
        return "".join(
            e.content.text
            for e in self.events
            if isinstance(e, MessageChunk) and e.role == "agent" and isinstance(e.content, TextPart)
        )


Factory = Callable[..., tuple[AgentConnection, Recorder]]


@pytest.fixture
async def connect(tmp_path: Path) -> AsyncIterator[Factory]:
    """Build connections to scripted agents; every one is stopped (and reaped) after the test."""
    made: list[AgentConnection] = []

    def make(name: str, *args: str, initialize_timeout: float = 10.0) -> tuple[AgentConnection, Recorder]:
        recorder = Recorder()
        params = initialize_params(prompt_suggestions=True, jetbrains_air=False)
        connection = AgentConnection(
            AgentProcess(agent_argv(name, *args), tmp_path), recorder, params, initialize_timeout
        )
        made.append(connection)
        return connection, recorder

    yield make
    for connection in made:
        await connection.stop()


async def test_echo_agent_initializes_and_streams_its_answer_in_wire_order(connect: Factory) -> None:
    agent, recorder = connect("echo_agent")
    info = await agent.start()
    assert (info.protocol_version, info.name, info.version) == (1, "scripted", "0")
    session = await agent.new_session(Path.cwd())

    assert await agent.prompt(session.session_id, PROMPT) == "end_turn"

    assert recorder.agent_text == "You said: hello agent"
    assert [t.session_id for t in recorder.translations] == ["echo-1"] * 4
    # The answer is told in wire order too, after the updates before it: the message is complete.
    assert recorder.translations[-1].events == (TurnAnswered(stop_reason="end_turn"),)
    sent = [m for d, m in recorder.wire if d == "out"]
    assert sent[0]["method"] == "initialize"
    # our own initialize params, with the capability the SDK's models would drop
    assert "promptSuggestions" in sent[0]["params"]["clientCapabilities"]["session"]


async def test_agent_crashing_mid_prompt_fails_the_prompt_with_its_exit_code_and_stderr(
    connect: Factory,
) -> None:
    agent, recorder = connect("crash_mid_stream")
    await agent.start()
    session = await agent.new_session(Path.cwd())

    with pytest.raises(AgentExitedError) as raised:
        await agent.prompt(session.session_id, PROMPT)

    assert raised.value.exit_code == 3
    assert str(raised.value) == "agent exited with code 3"
    assert raised.value.stderr_tail == [
        "fatal: model backend unreachable",
        "  while calling https://models.invalid/v1/chat",
        "giving up after 3 retries",
    ]
    assert recorder.agent_text == "Let me look into that"  # what streamed before the crash was kept
    with pytest.raises(AgentExitedError):  # and later requests fail the same way instead of hanging
        await agent.prompt(session.session_id, PROMPT)


async def test_each_line_that_is_not_a_json_rpc_object_becomes_a_notice_and_the_turn_completes(
    connect: Factory,
) -> None:
    agent, recorder = connect("garbage_stdout")
    await agent.start()
    session = await agent.new_session(Path.cwd())

    assert await agent.prompt(session.session_id, PROMPT) == "end_turn"

    assert recorder.agent_text == "first half, second half"
    assert [n.detail for n in recorder.notices] == [
        "Starting scripted agent v0 (logging to stdout, oops)",
        "[1, 2, 3]",
        "42",
        "DEBUG: tokens=17 latency=3ms",
        '[{"jsonrpc": "2.0", "method": "session/update", "params": {}}]',
        "{not json either",
    ]
    assert {n.text for n in recorder.notices} == {"the agent wrote a line that is not JSON-RPC"}


async def test_agent_that_never_answers_initialize_times_out_and_is_killed_on_stop(
    connect: Factory, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pid"
    agent, _ = connect("never_initializes", str(pid_file), initialize_timeout=1.0)

    with pytest.raises(AgentTimeoutError, match="did not answer initialize within 1 s"):
        await agent.start()
    [pid] = await read_pids(pid_file, 1)
    await agent.stop()

    assert isinstance(agent.process, AgentProcess)
    assert agent.process.returncode == -signal.SIGTERM  # it ignored stdin closing; SIGTERM ended it
    assert reaped(pid)


async def test_agent_exiting_at_start_fails_initialize_with_code_7_and_its_stderr(connect: Factory) -> None:
    agent, _ = connect("exits_at_start")

    with pytest.raises(AgentExitedError) as raised:
        await agent.start()

    assert raised.value.exit_code == 7
    assert raised.value.stderr_tail == [
        "error: no configuration found at ~/.scripted/config.toml",
        "run `scripted login` first",
    ]


async def test_missing_agent_command_fails_to_start_with_a_readable_error(connect: Factory) -> None:
    agent, _ = connect("no_such_agent_file")
    assert isinstance(agent.process, AgentProcess)
    agent.process.argv = ["/nonexistent/bin/agent-acp"]

    with pytest.raises(AgentStartError, match="could not start '/nonexistent/bin/agent-acp'"):
        await agent.start()


async def test_session_new_needs_authenticate_with_one_of_the_offered_methods(connect: Factory) -> None:
    agent, _ = connect("auth_required", "2")
    info = await agent.start()
    assert [m.id for m in info.auth_methods] == ["api-key", "browser-login"]
    assert info.auth_methods[0].description == "Use the key in SCRIPTED_API_KEY"

    with pytest.raises(AgentRequestError) as refused:
        await agent.new_session(Path.cwd())
    assert refused.value.code == AUTH_REQUIRED
    with pytest.raises(AgentRequestError, match="unknown auth method"):
        await agent.authenticate("made-up")

    await agent.authenticate("browser-login")
    session = await agent.new_session(Path.cwd())
    await agent.prompt(session.session_id, PROMPT)


async def test_updates_after_the_prompt_response_reach_the_listener(connect: Factory) -> None:
    agent, recorder = connect("late_updates")
    await agent.start()
    session = await agent.new_session(Path.cwd())

    assert await agent.prompt(session.session_id, PROMPT) == "end_turn"
    await eventually(lambda: "permission answer" in recorder.agent_text, what="the late updates")

    assert recorder.agent_text.startswith("a late chunk after the response")
    titles = [e.title for e in recorder.events if isinstance(e, SessionInfoEvent)]
    assert titles == ["A title sent late"]


async def test_agent_request_with_a_string_id_is_answered_with_that_same_id(connect: Factory) -> None:
    agent, recorder = connect("late_updates")
    await agent.start()
    session = await agent.new_session(Path.cwd())
    await agent.prompt(session.session_id, PROMPT)

    await eventually(lambda: "permission answer" in recorder.agent_text, what="the agent's report")

    [request] = recorder.permission_requests
    assert (request.session_id, request.tool_call.tool_call_id, request.title) == (
        "late-1",
        "call-1",
        "rm -rf build",
    )
    assert [o.id for o in request.options] == ["allow", "deny"]
    [answer] = [m for d, m in recorder.wire if d == "out" and m.get("id") == "perm-abc"]
    assert answer["result"] == {"outcome": {"outcome": "selected", "optionId": "allow"}}
    assert "permission answer id=perm-abc same-id=yes outcome=selected option=allow" in recorder.agent_text


async def test_malformed_updates_become_notices_and_later_chunks_still_arrive(connect: Factory) -> None:
    agent, recorder = connect("malformed_updates")
    await agent.start()
    session = await agent.new_session(Path.cwd())

    assert await agent.prompt(session.session_id, PROMPT) == "end_turn"

    unknown, broken = recorder.update_notices
    assert unknown.text == "ignored an update of unknown type 'hologram_update'"
    assert broken.text == "malformed agent_message_chunk update was ignored"
    assert "content" in (broken.detail or "")
    # The agent layer reports which session an update names; the runtime decides what to do with others.
    foreign = [t for t in recorder.translations if t.session_id == "someone-elses-session"]
    assert len(foreign) == 1
    assert "still here after the bad updates" in recorder.agent_text


async def test_a_flood_of_chunks_arrives_complete_and_in_order(connect: Factory) -> None:
    agent, recorder = connect("flood")
    await agent.start()
    session = await agent.new_session(Path.cwd())

    assert await agent.prompt(session.session_id, PROMPT) == "end_turn"

    assert recorder.agent_text == "".join(f"{i} " for i in range(3000))


def _pattern(items: int) -> str:
    return "".join(f"<{n:07}>" for n in range(items))


async def test_huge_lines_arrive_whole_and_in_wire_order_with_the_small_updates_around_them(
    connect: Factory,
) -> None:
    # A line past the transport's threshold is parsed on a worker thread: what comes after it must still
    # wait for it, on the stream and in the protocol log.
    agent, recorder = connect("huge_lines")
    await agent.start()
    session = await agent.new_session(Path.cwd())

    assert await agent.prompt(session.session_id, PROMPT) == "end_turn"

    shapes: list[tuple[str, str]] = []
    for event in recorder.events:
        if isinstance(event, MessageChunk) and isinstance(event.content, TextPart):
            shapes.append(("chunk", event.content.text))
        elif isinstance(event, ToolCallEvent):
            text = next((c.content.text for c in event.content or () if isinstance(c.content, TextPart)), "")
            shapes.append(("update" if event.is_update else "call", text))
        else:
            shapes.append((type(event).__name__, ""))
    assert shapes == [
        ("chunk", "before "),
        ("chunk", _pattern(600_000)),
        ("chunk", " between "),
        ("call", ""),
        ("update", _pattern(350_000)),
        ("chunk", " after"),
        ("TurnAnswered", ""),
    ]
    received = [m for d, m in recorder.wire if d == "in" and m.get("method") == "session/update"]
    kinds = [m["params"]["update"]["sessionUpdate"] for m in received]
    assert kinds == ["agent_message_chunk"] * 3 + ["tool_call", "tool_call_update", "agent_message_chunk"]


async def test_agent_writing_megabytes_to_stderr_is_not_blocked(connect: Factory) -> None:
    agent, _ = connect("stderr_flood", initialize_timeout=10.0)

    await agent.start()  # would time out if nobody drained the stderr pipe

    assert agent.process.stderr_tail()[-1] == "last stderr line"
    assert len(agent.process.stderr_tail()) <= 30


async def test_stop_ends_children_the_agent_left_in_its_process_group(
    connect: Factory, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pids"
    agent, _ = connect("spawns_child", str(pid_file))
    await agent.start()
    agent_pid, child_pid = await read_pids(pid_file, 2)
    assert pid_alive(child_pid)

    await agent.stop()

    assert reaped(agent_pid)
    await eventually(lambda: not pid_alive(child_pid), 5.0, "the agent's child to die")


async def test_exit_is_seen_at_once_even_while_a_child_holds_the_agents_pipes_open(
    connect: Factory, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pids"
    agent, _ = connect("crash_leaves_child", str(pid_file))
    await agent.start()
    session = await agent.new_session(Path.cwd())
    _, child_pid = await read_pids(pid_file, 2)
    turn = asyncio.create_task(agent.prompt(session.session_id, PROMPT))

    assert await asyncio.wait_for(agent.wait_exit(), timeout=5) == 3
    assert agent.process.stderr_tail() == ["fatal: lost the model connection"]
    await agent.stop()

    with pytest.raises(AgentExitedError):  # stopping ends the group, so the pending prompt fails too
        await asyncio.wait_for(turn, timeout=5)
    # (its pipes close a moment before the kernel marks it dead, so poll)
    await eventually(lambda: not pid_alive(child_pid), 5.0, "the agent's child to die")
