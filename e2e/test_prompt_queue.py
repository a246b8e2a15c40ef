"""No prompt a person typed is lost: one sent while the agent cannot take it waits, and goes out in order.

Two prompts typed 50 ms apart (the second before the page shows the first "working") both go out, in
order, and both show in the transcript, with an ACP v1 agent (tests/agents/queue_agent.py, whose turns take
a moment) and a v2 one (tests/agents/v2_scripted.py, which queues prompts itself). A prompt typed while a
permission request waits shows as waiting, can be edited or cancelled, and goes out once the turn ends.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.support.browser import AGENT_STARTUP_TIMEOUT, open_signed_in
from tests.support.console import watch_problems
from tests.support.layouts import Layout, shoot
from tests.support.live import LiveServer, scripted_agent, serve_in_thread
from tests.support.pages import agent_messages, user_messages
from tests.support.sessions import fresh_session

DEADLINE_MS = 30_000

# Each prompt as a person sends it (the text in the composer, then Enter), the second 50 ms after the first.
TYPED_50_MS_APART = """([first, second]) => new Promise((done) => {
  const box = document.getElementById("composer");
  const enter = (text) => {
    box.value = text;
    box.dispatchEvent(new Event("input", { bubbles: true }));
    box.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
  };
  enter(first);
  setTimeout(() => { enter(second); done(); }, 50);
})"""


@pytest.fixture(scope="module")
def queue_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    cwd = tmp_path_factory.mktemp("queue")
    with serve_in_thread(scripted_agent("queue_agent"), cwd=Path(cwd)) as live:
        yield live


def open_fresh(page: Page, server: LiveServer) -> None:
    """Open a new session of the module's server (every other closed first, so no page of this test is
    sent elsewhere as they close), signed in, once it is ready."""
    local_id = fresh_session(server, AGENT_STARTUP_TIMEOUT, opened=None)
    open_signed_in(page, dataclasses.replace(server, url=f"{server.base}/s/{local_id}"))
    ready(page)


def ready(page: Page) -> None:
    expect(page.get_by_test_id("agent-status")).to_have_attribute(
        "data-state", "ready", timeout=AGENT_STARTUP_TIMEOUT * 1000
    )


def send(page: Page, text: str) -> None:
    composer = page.get_by_test_id("composer")
    composer.fill(text)
    composer.press("Enter")


def no_refusal(page: Page) -> None:
    """Nothing was refused: no notice says the agent could not take a prompt."""
    expect(page.get_by_test_id("notice")).to_have_count(0)


def test_two_prompts_typed_50_ms_apart_both_go_out_in_order_with_a_v1_agent(
    page: Page, queue_server: LiveServer
) -> None:
    problems = watch_problems(page)
    open_fresh(page, queue_server)
    page.evaluate(TYPED_50_MS_APART, ["first prompt", "second prompt"])
    expect(user_messages(page)).to_have_count(2, timeout=DEADLINE_MS)
    expect(user_messages(page)).to_contain_text(["first prompt", "second prompt"])
    expect(agent_messages(page)).to_contain_text(
        ["You said: first prompt", "You said: second prompt"], timeout=DEADLINE_MS
    )
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready", timeout=DEADLINE_MS)
    expect(page.get_by_test_id("prompt-queue")).to_be_hidden()
    expect(page.get_by_test_id("composer")).to_have_value("")
    no_refusal(page)
    assert problems == []


def test_two_prompts_typed_50_ms_apart_both_go_out_in_order_with_a_v2_agent(
    browser: Browser, e2e_workspace: Path
) -> None:
    with serve_in_thread(
        agent=scripted_agent("v2_scripted"),
        cwd=e2e_workspace,
        extra_args=["--protocol", "2"],
        startup_timeout=AGENT_STARTUP_TIMEOUT,
    ) as live:
        context = browser.new_context()
        try:
            page = context.new_page()
            problems = watch_problems(page)
            open_signed_in(page, live)
            ready(page)
            page.evaluate(TYPED_50_MS_APART, ["first prompt", "second prompt"])
            expect(user_messages(page)).to_have_count(2, timeout=DEADLINE_MS)
            expect(user_messages(page)).to_contain_text(["first prompt", "second prompt"])
            expect(agent_messages(page)).to_have_count(2, timeout=DEADLINE_MS)  # one answer each
            expect(page.get_by_test_id("agent-status")).to_have_attribute(
                "data-state", "ready", timeout=DEADLINE_MS
            )
            expect(page.get_by_test_id("composer")).to_have_value("")
            no_refusal(page)
            assert problems == []
        finally:
            context.close()


def test_a_prompt_typed_while_a_permission_request_waits_waits_too_and_goes_out_when_the_turn_ends(
    page: Page, queue_server: LiveServer
) -> None:
    problems = watch_problems(page)
    open_fresh(page, queue_server)
    send(page, "ask to build")
    request = page.get_by_test_id("permission")
    expect(request).to_be_visible(timeout=DEADLINE_MS)
    expect(page.get_by_test_id("send")).to_have_text("Queue")  # what Send does now, said before it is used
    send(page, "third prompt")
    send(page, "fourth prompt")
    waiting = page.get_by_test_id("waiting-prompt")
    expect(waiting).to_have_count(2)
    expect(waiting).to_contain_text(["third prompt", "fourth prompt"])
    expect(page.get_by_test_id("composer")).to_have_value("")
    expect(user_messages(page)).to_have_count(1)  # not sent yet
    waiting.nth(1).get_by_test_id("waiting-cancel").click()
    expect(waiting).to_have_count(1)
    request.locator('button[data-option-id="allow"]').click()
    expect(agent_messages(page)).to_contain_text(
        ["You said: ask to build", "You said: third prompt"], timeout=DEADLINE_MS
    )
    expect(user_messages(page)).to_contain_text(["ask to build", "third prompt"])
    expect(user_messages(page)).to_have_count(2)  # the cancelled one never went
    expect(page.get_by_test_id("prompt-queue")).to_be_hidden()
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready", timeout=DEADLINE_MS)
    no_refusal(page)
    assert problems == []


def test_a_waiting_prompt_taken_back_to_edit_is_in_the_composer_and_not_sent(
    page: Page, queue_server: LiveServer
) -> None:
    open_fresh(page, queue_server)
    send(page, "ask first")
    expect(page.get_by_test_id("permission")).to_be_visible(timeout=DEADLINE_MS)
    send(page, "fix the typo in README")
    waiting = page.get_by_test_id("waiting-prompt")
    expect(waiting).to_have_count(1)
    waiting.get_by_test_id("waiting-edit").click()
    expect(page.get_by_test_id("composer")).to_have_value("fix the typo in README")
    expect(page.get_by_test_id("prompt-queue")).to_be_hidden()
    page.get_by_test_id("permission").locator('button[data-option-id="deny"]').click()
    expect(agent_messages(page)).to_contain_text(["You said: ask first"], timeout=DEADLINE_MS)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready", timeout=DEADLINE_MS)
    expect(user_messages(page)).to_have_count(1)  # the edited prompt waits in the composer, unsent
    expect(page.get_by_test_id("composer")).to_have_value("fix the typo in README")


def test_the_waiting_prompts_look_right_and_are_accessible(
    sized_page: Page, queue_server: LiveServer, layout: Layout
) -> None:
    page = sized_page
    open_fresh(page, queue_server)
    send(page, "ask to build the project")
    expect(page.get_by_test_id("permission")).to_be_visible(timeout=DEADLINE_MS)
    send(page, "then run the tests and tell me which ones fail")
    send(page, "and summarise the changes in a short paragraph for the release notes of this week")
    expect(page.get_by_test_id("waiting-prompt")).to_have_count(2)
    page.get_by_test_id("composer").focus()
    shoot(page, "prompt-queue", layout)
    page.get_by_test_id("permission").locator('button[data-option-id="allow"]').click()
    expect(page.get_by_test_id("prompt-queue")).to_be_hidden(timeout=DEADLINE_MS)
