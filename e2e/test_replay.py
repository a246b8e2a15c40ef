"""A demo-agent session recorded by the protocol inspector and played back by the replay agent: the page
shows the same answers and suggestions."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.support.browser import AGENT_STARTUP_TIMEOUT, signed_in_page
from tests.support.live import LiveServer, serve_in_thread
from tests.support.pages import agent_messages, chips, open_app, prompt
from tests.support.sessions import wait_until_agent_ready

PROMPTS = ("help", "list the files")


def shown(page: Page) -> tuple[list[str], list[str]]:
    """The agent's answers and the suggestions on offer, as the page shows them."""
    expect(chips(page).first).to_be_visible()
    return agent_messages(page).all_inner_texts(), chips(page).all_inner_texts()


def test_a_downloaded_session_replays_with_the_same_answers_and_suggestions(
    page: Page, server: LiveServer, browser: Browser, tmp_path: Path, e2e_workspace: Path
) -> None:
    open_app(page, server)
    recorded = []
    for text in PROMPTS:
        prompt(page, text)
        recorded.append(shown(page))
    page.get_by_test_id("inspector-toggle").click()
    with page.expect_download() as info:
        page.get_by_test_id("inspector-download").click()
    recording = tmp_path / "session.jsonl"
    info.value.save_as(recording)

    with serve_in_thread(
        f"replay:{recording} --speed 4", cwd=e2e_workspace, startup_timeout=AGENT_STARTUP_TIMEOUT
    ) as replay:
        wait_until_agent_ready(replay, AGENT_STARTUP_TIMEOUT)
        other = signed_in_page(browser, replay)
        try:
            open_app(other, replay)
            for text, expected in zip(PROMPTS, recorded, strict=True):
                prompt(other, text)
                expect(chips(other)).to_have_text(expected[1])
                assert shown(other) == expected
            expect(other.get_by_test_id("notice")).to_have_count(0)
        finally:
            other.context.close()
