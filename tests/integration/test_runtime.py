"""The agent's lifecycle as a browser tab sees it: real agent subprocesses behind the app.

Each test runs the app (in-process, `start_app`) with the demo agent or one of the scripted agents in
tests/agents/, and reads what a WebSocket tab receives. Two run a real server subprocess
(`serve_process`): one kills the agent by its pid among the server's children, one reads the server's own
output.
"""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pytest

from tests.support.html import Page, has_notice, status_is, turn_finished
from tests.support.inprocess import StartApp
from tests.support.live import Serve, open_tab
from tests.support.polling import eventually
from tests.support.processes import children_of, pid_alive, read_pids, reaped


def test_demo_agent_answers_help_with_a_streamed_message(start_app: StartApp) -> None:
    app = start_app()
    tab = app.open_tab()
    tab.wait_for(status_is("ready"))

    tab.send(action="prompt", text="help")
    tab.wait_for(turn_finished("help"), timeout=30)

    page = Page.parse(tab.html)
    assert page.texts("user") == ["help"]
    assert "demo agent" in page.agent_text
    assert page.notices == []


def test_crash_mid_answer_shows_exit_code_and_stderr_and_restart_brings_the_agent_back(
    start_app: StartApp,
) -> None:
    app = start_app("crash_mid_stream")
    tab = app.open_tab()
    tab.wait_for(status_is("ready"))

    tab.send(action="prompt", text="summarise the project")
    tab.wait_for(has_notice("agent exited with code 3"))
    tab.wait_for(status_is("exited"))

    page = Page.parse(tab.html)
    [notice] = page.notices_with("agent exited with code 3")
    assert "fatal: model backend unreachable" in notice
    assert "giving up after 3 retries" in notice
    assert page.agent_text == "Let me look into that"
    response = app.get("/s/s1")
    assert response.status_code == 200
    assert 'data-state="exited"' in response.text
    assert 'data-testid="restart"' in response.text

    tab.send(action="restart")
    tab.wait_for(status_is("ready"))

    page = Page.parse(tab.html)
    # One card for the failure, now a quiet line that says how it stands: the agent was restarted.
    [card] = page.notices_with("agent exited with code 3")
    assert "The agent stopped and was restarted at" in card
    assert "running again" not in card and "Restart agent" not in card
    assert page.texts("user") == ["summarise the project"]  # the transcript survives the restart


def test_lines_that_are_not_json_rpc_show_as_a_notice_with_a_count_and_the_prompt_completes(
    start_app: StartApp,
) -> None:
    app = start_app("garbage_stdout")
    tab = app.open_tab()

    tab.wait_for(status_is("ready"))
    tab.send(action="prompt", text="go")
    tab.wait_for(turn_finished("go"))

    page = Page.parse(tab.html)
    garbage = page.notices_with("the agent wrote a line that is not JSON-RPC")
    # Three at start (before the prompt), three during the turn: one notice each, counted.
    assert len(garbage) == 2
    assert page.notice_counts("the agent wrote a line that is not JSON-RPC") == [3, 3]
    assert "{not json either" in garbage[1]  # the latest line shows
    # The first notice in the turn ends the agent's message bubble; its repeats do not.
    assert page.texts("agent") == ["first half,", "second half"]


async def test_agent_that_never_initializes_times_out_with_a_notice_and_is_reaped(
    start_app: StartApp, tmp_path: Path
) -> None:
    pid_file = tmp_path / "agent.pid"
    app = start_app("never_initializes", str(pid_file), initialize_timeout=2)
    tab = app.open_tab()
    [pid] = await read_pids(pid_file, 1)

    tab.wait_for(status_is("exited"), timeout=15)

    page = Page.parse(tab.html)
    assert page.notices_with("the agent did not answer initialize within 2 s")
    assert reaped(pid)  # "exited" is shown only after the process was stopped and waited for


def test_agent_exiting_at_start_shows_code_7_and_its_stderr(start_app: StartApp) -> None:
    app = start_app("exits_at_start")
    tab = app.open_tab()

    tab.wait_for(status_is("exited"))

    [notice] = Page.parse(tab.html).notices_with("agent exited with code 7")
    assert "error: no configuration found at ~/.scripted/config.toml" in notice
    assert "run `scripted login` first" in notice


def test_agent_with_one_auth_method_is_signed_in_automatically(start_app: StartApp) -> None:
    app = start_app("auth_required", "1")
    tab = app.open_tab()
    tab.wait_for(status_is("ready"))

    tab.send(action="prompt", text="who am I")
    tab.wait_for(turn_finished("who am I"))

    page = Page.parse(tab.html)
    assert page.agent_text == "signed in with api-key"
    assert page.auth_methods == []


def test_agent_with_two_auth_methods_lets_the_user_choose(start_app: StartApp) -> None:
    app = start_app("auth_required", "2")
    tab = app.open_tab()
    tab.wait_for(status_is("auth-required"))
    tab.wait_for(lambda html: len(Page.parse(html).auth_methods) == 2)

    assert Page.parse(tab.html).auth_methods == [
        ("api-key", "API key"),
        ("browser-login", "Sign in with a browser"),
    ]
    tab.send(action="authenticate", method_id="made-up")
    tab.wait_for(has_notice("unknown sign-in method 'made-up'"))
    assert Page.parse(tab.html).status == "auth-required"

    tab.send(action="authenticate", method_id="browser-login")
    tab.wait_for(status_is("ready"))
    assert Page.parse(tab.html).auth_methods == []

    tab.send(action="prompt", text="who am I")
    tab.wait_for(turn_finished("who am I"))
    assert Page.parse(tab.html).agent_text == "signed in with browser-login"


@pytest.mark.system
async def test_agent_dying_while_the_sign_in_choice_is_shown_is_reported(serve_process: Serve) -> None:
    server = serve_process("auth_required", "2")
    tab = await open_tab(server)
    await tab.wait_for(status_is("auth-required"))
    [agent_pid] = children_of(server.popen.pid)

    os.kill(agent_pid, signal.SIGKILL)  # as the OOM killer would
    await tab.wait_for(status_is("exited"), timeout=10)

    page = Page.parse(tab.html)
    assert page.notices_with("agent exited with code -9 (killed by signal 9)")
    assert page.auth_methods == []


def test_updates_after_the_prompt_response_are_shown_and_string_ids_are_echoed(start_app: StartApp) -> None:
    app = start_app("late_updates")
    tab = app.open_tab()
    tab.wait_for(status_is("ready"))

    tab.send(action="prompt", text="go")
    html = tab.wait_for(lambda html: 'data-testid="permission" data-state="pending"' in html)
    request_id = re.search(r'id="(perm-\d+)"[^>]*data-testid="permission"', html)
    assert request_id is not None
    tab.send(action="permission", request_id=request_id.group(1), option_id="deny")
    tab.wait_for(lambda html: "permission answer" in Page.parse(html).agent_text)

    page = Page.parse(tab.html)
    assert "a late chunk after the response" in page.agent_text
    assert '<h1 class="title" data-testid="page-title">A title sent late</h1>' in tab.html
    # The user's choice reaches the agent under the agent's own string id.
    assert "permission answer id=perm-abc same-id=yes outcome=selected option=deny" in page.agent_text
    assert page.status == "ready"


@pytest.mark.system
async def test_malformed_updates_show_notices_without_a_traceback_and_the_session_goes_on(
    serve_process: Serve,
) -> None:
    server = serve_process("malformed_updates")
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"))

    await tab.send(action="prompt", text="go")
    await tab.wait_for(turn_finished("go"))

    page = Page.parse(tab.html)
    assert page.notices_with("ignored an update of unknown type 'hologram_update'")
    assert page.notices_with("malformed agent_message_chunk update was ignored")
    assert page.notices_with("ignored an update for unknown session 'someone-elses-session'")
    assert page.agent_text == "still here after the bad updates"
    await tab.send(action="prompt", text="again")
    await tab.wait_for(turn_finished("again"))
    assert "Traceback" not in server.log()


async def test_crash_is_reported_even_while_a_child_of_the_agent_holds_its_pipes_open(
    start_app: StartApp, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pids"
    app = start_app("crash_leaves_child", str(pid_file))
    tab = app.open_tab()
    tab.wait_for(status_is("ready"))
    agent_pid, child_pid = await read_pids(pid_file, 2)

    tab.send(action="prompt", text="go")
    tab.wait_for(status_is("exited"), timeout=10)

    [notice] = Page.parse(tab.html).notices_with("agent exited with code 3")
    assert "fatal: lost the model connection" in notice
    assert reaped(agent_pid)
    # the rest of the agent's process group was stopped with it (it dies a moment after, so poll)
    await eventually(lambda: not pid_alive(child_pid), 5.0, "the agent's child to die")


def test_an_agent_logging_to_stdout_gets_one_counted_notice_and_its_answer_stays_whole(
    start_app: StartApp,
) -> None:
    app = start_app("stdout_logger")
    tab = app.open_tab()
    tab.wait_for(status_is("ready"))
    tab.send(action="prompt", text="go")
    tab.wait_for(turn_finished("go"), timeout=60)

    page = Page.parse(tab.html)
    [notice] = page.notices_with("not JSON-RPC")
    assert "log: step 199" in notice
    assert page.notice_counts("not JSON-RPC") == [200]
    # One break in the answer, where the first notice came; the 199 repeats leave it whole.
    assert page.texts("agent") == ["0", " ".join(str(n) for n in range(1, 200))]
