"""The web layer: what a tab may send (in-process, with real scripted agents), and what stopping the
server process does to the agent (a real server subprocess)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.html import Page, has_notice, status_is, turn_finished
from tests.support.inprocess import InProcessApp, StartApp, wait_until_ready
from tests.support.live import Serve, open_tab, scripted_agent, serve_in_thread
from tests.support.polling import eventually, wait_until
from tests.support.processes import pid_alive, read_pids

BAD_ACTIONS = {
    "not JSON": ("this is not json", "does not understand"),
    "JSON that is not an object": ("[1, 2, 3]", "does not understand"),
    "unknown action": (json.dumps({"action": "launch_missiles"}), "does not understand"),
    "prompt without text": (json.dumps({"action": "prompt"}), "does not understand"),
    "empty prompt": (json.dumps({"action": "prompt", "text": "  \n "}), "an empty prompt was not sent"),
    "cancel while idle": (json.dumps({"action": "cancel"}), "nothing to cancel"),
    "sign-in nobody asked for": (
        json.dumps({"action": "authenticate", "method_id": "api-key"}),
        "the agent is not waiting for a sign-in",
    ),
    "binary frame": (b'{"action": "prompt", "text": "hi"}', "only understands text"),
    # The domain's rejections are Refused: the tab's one handler shows them (nothing re-wraps them).
    "file outside the workspace": (
        json.dumps({"action": "attach_file", "path": "../elsewhere.txt"}),
        "is not a file in the workspace",
    ),
    "attachment the composer does not hold": (
        json.dumps({"action": "prompt", "text": "hi", "attachments": ["gone"]}),
        "is no longer held",
    ),
}


@pytest.mark.parametrize("raw, shown", BAD_ACTIONS.values(), ids=BAD_ACTIONS.keys())
def test_a_bad_action_gets_a_notice_in_that_tab_only_and_changes_nothing(
    start_app: StartApp, raw: str | bytes, shown: str
) -> None:
    app = start_app("echo_agent")
    sender, other = app.open_tab(), app.open_tab()
    for tab in (sender, other):
        wait_until_ready(tab)

    sender.send_raw(raw)
    sender.wait_for(has_notice(shown))
    # The tab is still connected and the session still works: a real prompt goes through.
    sender.send(action="prompt", text="still fine?")
    for tab in (sender, other):
        tab.wait_for(turn_finished("still fine?"))

    assert Page.parse(other.html).notices == []
    fresh = Page.parse(_snapshot(app))
    assert fresh.notices == []  # the notice was never part of the shared transcript
    assert fresh.messages == [("user", "still fine?"), ("agent", "You said: still fine?")]


def test_a_tab_that_lost_its_socket_can_ask_whether_its_session_is_still_served(start_app: StartApp) -> None:
    # The page's probe after a lost connection: a HEAD of its own page, answered without the page.
    app = start_app("echo_agent")
    served = app.client.head("/s/s1", headers={"cookie": app.cookie})
    assert (served.status_code, served.content) == (200, b"")
    assert app.client.head("/s/s404", headers={"cookie": app.cookie}).status_code == 404
    assert app.client.head("/s/s1").status_code == 401  # a server that no longer knows the tab


def test_a_prompt_while_a_v1_agent_is_working_waits_in_every_tab_and_goes_out_when_the_turn_ends(
    start_app: StartApp, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    app = start_app("gated_stream", str(gate))
    sender, other = app.open_tab(), app.open_tab()
    for tab in (sender, other):
        wait_until_ready(tab)
    sender.send(action="prompt", text="the first prompt")
    sender.wait_for(lambda html: "first half" in Page.parse(html).agent_text)

    sender.send(action="prompt", text="a second prompt too early")
    waiting = 'data-testid="waiting-prompt"'
    for tab in (sender, other):  # shown as waiting, not in the transcript yet
        tab.wait_for(lambda html: waiting in html and "a second prompt too early" in html)
        assert Page.parse(tab.html).texts("user") == ["the first prompt"]
    gate.touch()
    for tab in (sender, other):
        tab.wait_for(turn_finished("a second prompt too early"))

    for page in (Page.parse(sender.html), Page.parse(other.html), Page.parse(_snapshot(app))):
        assert page.notices == []
        assert page.texts("user") == ["the first prompt", "a second prompt too early"]
        assert page.texts("agent") == ["first half, second half.", "first half, second half."]


@pytest.mark.system
@pytest.mark.parametrize(
    "signals",
    [(signal.SIGTERM,), (signal.SIGINT,), (signal.SIGINT, signal.SIGINT), (signal.SIGHUP,)],
    ids=["SIGTERM", "Ctrl+C", "Ctrl+C twice", "terminal closed"],
)
async def test_stopping_the_server_kills_the_agent_and_its_children(
    serve_process: Serve, tmp_path: Path, signals: tuple[signal.Signals, ...]
) -> None:
    pid_file = tmp_path / "pids"
    server = serve_process("spawns_child", str(pid_file))
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"))
    await tab.send(action="prompt", text="hello")  # a turn in progress, or just finished
    agent_pid, child_pid = await read_pids(pid_file, 2)
    assert pid_alive(agent_pid) and pid_alive(child_pid)

    for sig in signals:  # a second Ctrl+C makes uvicorn quit without waiting for the graceful shutdown
        server.popen.send_signal(sig)
    # uvicorn shuts down gracefully, then re-raises the signal it caught.
    assert server.popen.wait(timeout=15) in (0, 1, -sig, 128 + sig)

    await eventually(lambda: not (pid_alive(agent_pid) or pid_alive(child_pid)), 5.0, "agent and child gone")


def _snapshot(app: InProcessApp) -> str:
    """The first frame a newly connected tab receives: the full state of the session."""
    tab = app.open_tab()
    try:
        return tab.first_frame()
    finally:
        tab.close()


async def test_a_tab_on_loopback_gets_its_frames_uncompressed(workspace: Path) -> None:
    with serve_in_thread(scripted_agent("echo_agent"), cwd=workspace) as server:
        tab = await open_tab(server)
        try:
            # Offered, as browsers do, and declined: on loopback compression only costs CPU.
            assert "permessage-deflate" in tab.socket.request.headers["Sec-WebSocket-Extensions"]
            assert tab.socket.response.headers.get("Sec-WebSocket-Extensions") is None
            await tab.wait_for(status_is("ready"))
        finally:
            await tab.close()


@pytest.mark.system
@pytest.mark.parametrize(
    "inherited", [signal.SIG_DFL, signal.SIG_IGN], ids=["from a terminal", "started in the background"]
)
@pytest.mark.parametrize("delay", [0.0, 0.2], ids=["at once", "while the app is imported"])
def test_ctrl_c_right_after_the_url_shows_stops_the_server_cleanly(
    workspace: Path, inherited: signal.Handlers, delay: float
) -> None:
    """The URL is printed before the app is imported: a Ctrl+C from then on stops the server, quietly
    (no traceback), also when SIGINT came ignored from a shell that started it in the background."""
    with subprocess.Popen(
        [sys.executable, "-m", "webclient", "--no-browser", "--port", "0", "--cwd", str(workspace)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, inherited),
    ) as process:  # its end closes the pipe and reaps the process
        try:
            assert process.stdout is not None
            assert "is running at" in process.stdout.readline()
            time.sleep(delay)
            process.send_signal(signal.SIGINT)
            # Stopped: with 0, or (a few starts in a hundred) by the signal itself as the interpreter shuts
            # down, as any program stopped by Ctrl+C does; quietly either way.
            assert process.wait(timeout=30) in (0, -signal.SIGINT)
            assert "Traceback" not in process.stdout.read()
        finally:
            process.kill()


def test_the_app_builds_the_hidden_character_pattern_as_it_starts_not_in_the_first_turn(
    start_app: StartApp,
) -> None:
    from webclient.views import hidden_chars

    hidden_chars._hidden_pattern.cache_clear()
    app = start_app("echo_agent")
    wait_until_ready(app.open_tab())
    # Nothing was shown that scans for hidden characters: only the start built it.
    wait_until(lambda: hidden_chars._hidden_pattern.cache_info().currsize == 1, 30, "the pattern to be built")
