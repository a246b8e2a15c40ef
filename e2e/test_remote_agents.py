"""An agent on another machine in the browser: where it runs and what it may do, a server killed
mid-turn and started again (the page says "reconnecting", keeps what you type, and the session goes on),
and an endpoint that refuses the credentials. The agent is the demo agent served over WebSocket by
`acpremote` on loopback."""

from __future__ import annotations

import json
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.support.browser import AGENT_STARTUP_TIMEOUT, FAST_DEMO
from tests.support.layouts import Layout, assert_accessible, shoot
from tests.support.live import serve_in_thread
from tests.support.pages import agent_messages, prompt, user_messages
from tests.support.remote_agents import TOKEN, acpremote_demo, running

RECONNECT_WAIT = 90_000  # ms: a server start on a loaded machine, then the next try of the backoff


def test_a_server_killed_mid_turn_is_reconnected_and_the_session_goes_on_with_what_was_typed(
    sized_page: Page, e2e_workspace: Path, tmp_path: Path, layout: Layout
) -> None:
    page = sized_page
    status = page.get_by_test_id("agent-status")
    composer = page.get_by_test_id("composer")
    remote = acpremote_demo(tmp_path / "state", e2e_workspace, env={**FAST_DEMO})
    with running(remote), serve_in_thread(agent=remote.url(), cwd=e2e_workspace) as live:
        page.goto(live.url)  # its token link; the agent may still be starting on a loaded machine
        expect(status).to_have_attribute("data-state", "ready", timeout=AGENT_STARTUP_TIMEOUT * 1000)
        notice = page.get_by_test_id("notice").filter(has_text="runs on another machine")
        expect(notice).to_be_visible()
        prompt(page, "my name is Ada")
        address = page.url
        composer.fill("count to 500")
        composer.press("Enter")
        expect(agent_messages(page).last).to_contain_text("3")  # the count is under way

        remote.kill()
        expect(status).to_have_attribute("data-state", "reconnecting", timeout=RECONNECT_WAIT)
        expect(status).to_have_text("reconnecting…")
        expect(page.get_by_test_id("send")).to_be_disabled()
        expect(page.get_by_test_id("restart")).to_have_text("Reconnect now")
        composer.fill("and now?")
        composer.press("Enter")  # Send waits for the agent: nothing leaves, nothing is lost
        expect(composer).to_have_value("and now?")
        shoot(page, "remote-reconnecting", layout)
        assert_accessible(page, "a remote agent reconnecting")

        remote.start()
        expect(status).to_have_attribute("data-state", "ready", timeout=RECONNECT_WAIT)
        expect(page.get_by_test_id("notice").filter(has_text="the session goes on")).to_have_count(1)
        assert page.url == address
        expect(user_messages(page)).to_have_count(2)  # the agent's replay is not shown twice
        before = agent_messages(page).count()
        expect(composer).to_have_value("and now?")
        composer.press("Enter")
        expect(user_messages(page)).to_have_count(3)
        expect(status).to_have_attribute("data-state", "ready")
        expect(agent_messages(page)).to_have_count(before + 1)
        shoot(page, "remote-reconnected", layout)


def test_wrong_credentials_are_told_in_the_page_with_the_way_out(
    page: Page, e2e_workspace: Path, tmp_path: Path
) -> None:
    remote = acpremote_demo(tmp_path / "state", e2e_workspace, token=TOKEN, env=FAST_DEMO)
    config = tmp_path / "settings.json"
    entry = {"url": remote.url(), "headers": {"Authorization": "Bearer not-the-token"}}
    config.write_text(json.dumps({"agent_servers": {"build-box": entry}}), encoding="utf-8")
    serving = serve_in_thread(
        agent="build-box",
        cwd=e2e_workspace,
        extra_args=("--config", str(config)),
        startup_timeout=AGENT_STARTUP_TIMEOUT,
    )
    with running(remote), serving as live:
        page.goto(live.url)
        expect(page.get_by_test_id("agent-status")).to_have_attribute(
            "data-state", "exited", timeout=AGENT_STARTUP_TIMEOUT * 1000
        )
        failure = page.get_by_test_id("notice").filter(
            has_text="refused the credentials (HTTP 401 Unauthorized)"
        )
        expect(failure).to_be_visible()
        expect(page.get_by_test_id("restart")).to_be_visible()
        assert_accessible(page, "a remote agent that refused the credentials")
