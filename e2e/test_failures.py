"""Agent failures read as one clear card that updates in place, with the likely cause and a way out: an
agent that crashes, a command that is not found, and a restart that fails twice."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser import open_signed_in
from tests.support.layouts import DESKTOP, assert_accessible, shoot
from tests.support.live import LiveServer, scripted_agent, serve_in_thread


def failure_cards(page: Page):  # type: ignore[no-untyped-def]
    return page.locator('[data-testid="notice"][data-failure="true"]')


@pytest.fixture
def crashing(e2e_workspace: Path) -> Iterator[LiveServer]:
    with serve_in_thread(agent=scripted_agent("exits_at_start"), cwd=e2e_workspace) as live:
        yield live


@pytest.fixture
def missing(e2e_workspace: Path) -> Iterator[LiveServer]:
    with serve_in_thread(agent="no-such-agent-acp", cwd=e2e_workspace) as live:
        yield live


def restart(page: Page, attempt: int) -> None:
    page.get_by_test_id("failure-restart").click()
    expect(page.get_by_test_id("failure-attempt")).to_have_text(f"attempt {attempt}")
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "exited")


def test_a_crashing_agent_has_one_card_that_each_restart_updates_in_place(
    page: Page, crashing: LiveServer
) -> None:
    page.set_viewport_size({"width": DESKTOP.width, "height": DESKTOP.height})
    open_signed_in(page, crashing)
    card = failure_cards(page)
    expect(card).to_have_count(1)
    expect(card).to_contain_text("The agent stopped running")
    expect(page.get_by_test_id("failure-stderr")).to_contain_text("run `scripted login` first")
    expect(page.get_by_test_id("failure-text")).to_contain_text("code 7")
    restart(page, 2)
    restart(page, 3)  # restarted twice: still one card, and no other notice
    expect(card).to_have_count(1)
    expect(page.get_by_test_id("notice")).to_have_count(1)
    expect(page.get_by_test_id("composer-status")).to_contain_text("The agent is not running")
    shoot(page, "failure-crash", DESKTOP)
    assert_accessible(page, "a crashed agent's card")
    page.get_by_test_id("failure-log").click()  # the way to the whole story: the protocol log
    expect(page.get_by_test_id("inspector")).to_be_visible()


def test_a_command_that_is_not_found_says_to_check_agent_or_install_the_adapter(
    page: Page, missing: LiveServer
) -> None:
    page.set_viewport_size({"width": DESKTOP.width, "height": DESKTOP.height})
    open_signed_in(page, missing)
    card = failure_cards(page)
    expect(card).to_have_count(1)
    hint = page.get_by_test_id("failure-hint")
    expect(hint).to_contain_text("--agent")
    expect(hint).to_contain_text("npm i -g @agentclientprotocol/claude-agent-acp")
    restart(page, 2)
    expect(card).to_have_count(1)
    expect(page.get_by_test_id("notice")).to_have_count(1)
    shoot(page, "failure-missing", DESKTOP)
    assert_accessible(page, "a missing command's card")


@pytest.fixture
def crashes_mid_turn(e2e_workspace: Path) -> Iterator[LiveServer]:
    with serve_in_thread(agent=scripted_agent("crash_mid_stream"), cwd=e2e_workspace) as live:
        yield live


def test_a_restart_that_brings_the_agent_back_turns_the_card_into_a_quiet_line(
    page: Page, crashes_mid_turn: LiveServer
) -> None:
    page.set_viewport_size({"width": DESKTOP.width, "height": DESKTOP.height})
    open_signed_in(page, crashes_mid_turn)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    composer = page.get_by_test_id("composer")
    composer.fill("summarise the project")
    composer.press("Enter")
    card = failure_cards(page)
    expect(card).to_have_attribute("data-state", "failed")
    page.get_by_test_id("failure-restart").click()
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    expect(card).to_have_attribute("data-state", "running")
    settled = page.get_by_test_id("failure-settled")
    expect(settled).to_have_text(re.compile(r"The agent stopped and was restarted at \d\d:\d\d\."))
    expect(card).not_to_contain_text("running again")
    expect(card).not_to_contain_text("The agent stopped running. the agent")
    expect(page.get_by_test_id("failure-restart")).to_have_count(0)  # nothing to restart any more
    colour = card.evaluate("el => getComputedStyle(el).backgroundColor")
    assert colour in ("rgba(0, 0, 0, 0)", "transparent"), f"still a coloured card: {colour}"
    stderr = page.get_by_test_id("failure-stderr")
    expect(stderr).to_be_hidden()  # what happened stays one click away
    card.get_by_text("What happened").click()
    expect(stderr).to_contain_text("fatal: model backend unreachable")
    shoot(page, "failure-restarted", DESKTOP)
