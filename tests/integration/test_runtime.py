"""The agent's lifecycle as a browser tab sees it: a real server subprocess running real agent subprocesses.

Each test starts `python -m webclient` like a user, with the demo agent or one of the scripted agents in
tests/agents/, and reads what a WebSocket tab receives.
"""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import httpx

from tests.integration.conftest import Serve
from tests.integration.support import (
    Page,
    children_of,
    eventually,
    has_notice,
    pid_alive,
    read_pids,
    reaped,
    status_is,
    turn_finished,
)
from tests.live import LiveServer, open_tab


async def test_demo_agent_answers_help_with_a_streamed_message(demo_server: LiveServer) -> None:
    tab = await open_tab(demo_server)
    await tab.wait_for(status_is("ready"))

    await tab.send(action="prompt", text="help")
    await tab.wait_for(turn_finished("help"), timeout=30)

    page = Page.parse(tab.html)
    assert page.texts("user") == ["help"]
    assert "demo agent" in page.agent_text
    assert page.notices == [], demo_server.log()


async def test_crash_mid_answer_shows_exit_code_and_stderr_and_restart_brings_the_agent_back(
    serve: Serve,
) -> None:
    server = serve("crash_mid_stream")
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"))

    await tab.send(action="prompt", text="summarise the project")
    await tab.wait_for(has_notice("agent exited with code 3"))
    await tab.wait_for(status_is("exited"))

    page = Page.parse(tab.html)
    [notice] = page.notices_with("agent exited with code 3")
    assert "fatal: model backend unreachable" in notice
    assert "giving up after 3 retries" in notice
    assert page.agent_text == "Let me look into that"
    cookie = server.cookie()
    response = httpx.get(server.base + "/", headers={"cookie": cookie})
    assert response.status_code == 200
    assert 'data-state="exited"' in response.text
    assert 'data-testid="restart"' in response.text

    await tab.send(action="restart")
    await tab.wait_for(status_is("ready"))

    page = Page.parse(tab.html)
    assert page.notices_with("restarting the agent")
    assert page.texts("user") == ["summarise the project"]  # the transcript survives the restart


async def test_lines_that_are_not_json_rpc_each_show_a_notice_and_the_prompt_completes(serve: Serve) -> None:
    server = serve("garbage_stdout")
    tab = await open_tab(server)

    await tab.wait_for(status_is("ready"))
    await tab.send(action="prompt", text="go")
    await tab.wait_for(turn_finished("go"))

    page = Page.parse(tab.html)
    garbage = page.notices_with("the agent wrote a line that is not JSON-RPC")
    assert page.notice_count("the agent wrote a line that is not JSON-RPC") == 6
    assert any("DEBUG: tokens=17" in n for n in garbage)
    # (a notice between two chunks ends the agent's message bubble; the text itself is all there)
    assert " ".join(page.texts("agent")) == "first half, second half"


async def test_agent_that_never_initializes_times_out_with_a_notice_and_is_reaped(
    serve: Serve, tmp_path: Path
) -> None:
    pid_file = tmp_path / "agent.pid"
    server = serve("never_initializes", str(pid_file), env={"WEBCLIENT_INITIALIZE_TIMEOUT": "2"})
    tab = await open_tab(server)
    [pid] = await read_pids(pid_file, 1)

    await tab.wait_for(status_is("exited"), timeout=15)

    page = Page.parse(tab.html)
    assert page.notices_with("the agent did not answer initialize within 2 s")
    assert reaped(pid)  # "exited" is shown only after the process was stopped and waited for


async def test_agent_exiting_at_start_shows_code_7_and_its_stderr(serve: Serve) -> None:
    server = serve("exits_at_start")
    tab = await open_tab(server)

    await tab.wait_for(status_is("exited"))

    [notice] = Page.parse(tab.html).notices_with("agent exited with code 7")
    assert "error: no configuration found at ~/.scripted/config.toml" in notice
    assert "run `scripted login` first" in notice


async def test_agent_with_one_auth_method_is_signed_in_automatically(serve: Serve) -> None:
    server = serve("auth_required", "1")
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"))

    await tab.send(action="prompt", text="who am I")
    await tab.wait_for(turn_finished("who am I"))

    page = Page.parse(tab.html)
    assert page.agent_text == "signed in with api-key"
    assert page.auth_methods == []


async def test_agent_with_two_auth_methods_lets_the_user_choose(serve: Serve) -> None:
    server = serve("auth_required", "2")
    tab = await open_tab(server)
    await tab.wait_for(status_is("auth-required"))
    await tab.wait_for(lambda html: len(Page.parse(html).auth_methods) == 2)

    assert Page.parse(tab.html).auth_methods == [
        ("api-key", "API key"),
        ("browser-login", "Sign in with a browser"),
    ]
    await tab.send(action="authenticate", method_id="made-up")
    await tab.wait_for(has_notice("unknown sign-in method 'made-up'"))
    assert Page.parse(tab.html).status == "auth-required"

    await tab.send(action="authenticate", method_id="browser-login")
    await tab.wait_for(status_is("ready"))
    assert Page.parse(tab.html).auth_methods == []

    await tab.send(action="prompt", text="who am I")
    await tab.wait_for(turn_finished("who am I"))
    assert Page.parse(tab.html).agent_text == "signed in with browser-login"


async def test_agent_dying_while_the_sign_in_choice_is_shown_is_reported(serve: Serve) -> None:
    server = serve("auth_required", "2")
    tab = await open_tab(server)
    await tab.wait_for(status_is("auth-required"))
    [agent_pid] = children_of(server.process.pid)

    os.kill(agent_pid, signal.SIGKILL)  # as the OOM killer would
    await tab.wait_for(status_is("exited"), timeout=10)

    page = Page.parse(tab.html)
    assert page.notices_with("agent exited with code -9 (killed by signal 9)")
    assert page.auth_methods == []


async def test_updates_after_the_prompt_response_are_shown_and_string_ids_are_echoed(serve: Serve) -> None:
    server = serve("late_updates")
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"))

    await tab.send(action="prompt", text="go")
    html = await tab.wait_for(lambda html: 'data-testid="permission" data-state="pending"' in html)
    request_id = re.search(r'id="(perm-\d+)"[^>]*data-testid="permission"', html)
    assert request_id is not None
    await tab.send(action="permission", request_id=request_id.group(1), option_id="deny")
    await tab.wait_for(lambda html: "permission answer" in Page.parse(html).agent_text)

    page = Page.parse(tab.html)
    assert "a late chunk after the response" in page.agent_text
    assert '<span class="title">A title sent late</span>' in tab.html
    # The user's choice reaches the agent under the agent's own string id.
    assert "permission answer id=perm-abc same-id=yes outcome=selected option=deny" in page.agent_text
    assert page.status == "ready"


async def test_malformed_updates_show_notices_without_a_traceback_and_the_session_goes_on(
    serve: Serve,
) -> None:
    server = serve("malformed_updates")
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
    serve: Serve, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pids"
    server = serve("crash_leaves_child", str(pid_file))
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"))
    agent_pid, child_pid = await read_pids(pid_file, 2)

    await tab.send(action="prompt", text="go")
    await tab.wait_for(status_is("exited"), timeout=10)

    [notice] = Page.parse(tab.html).notices_with("agent exited with code 3")
    assert "fatal: lost the model connection" in notice
    assert reaped(agent_pid)
    # the rest of the agent's process group was stopped with it (it dies a moment after, so poll)
    await eventually(lambda: not pid_alive(child_pid), 5.0, "the agent's child to die")
