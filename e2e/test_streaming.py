"""Streaming in a real browser: an answer assembled from finished blocks and tails equals a fresh render."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Dialog, Page, expect

from tests.support.browser import AGENT_STARTUP_TIMEOUT, sign_in
from tests.support.live import LiveServer, scripted_agent, serve_in_thread
from tests.support.pages import reload
from tests.support.screenshots import screenshot
from tests.support.sessions import fresh_session

END = "\u2016"  # the scripted agent's end marker


@pytest.fixture(scope="module")
def stream_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server with the streaming agent for the module; each test asks in a new session of its own."""
    with serve_in_thread(agent=scripted_agent("stream"), cwd=tmp_path_factory.mktemp("stream")) as live:
        yield live


def ask(page: Page, server: LiveServer, prompt: str) -> None:
    sign_in(page.context, server)
    local_id = fresh_session(server, AGENT_STARTUP_TIMEOUT, opened=None)
    page.goto(f"{server.base}/s/{local_id}")
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    composer = page.get_by_test_id("composer")
    composer.fill(prompt)
    composer.press("Enter")


def answer_html(page: Page) -> str:
    return str(page.locator('[data-testid="message"][data-role="agent"] .body').inner_html())


def test_a_long_markdown_answer_streamed_in_pieces_shows_what_a_fresh_page_shows(
    page: Page, stream_server: LiveServer
) -> None:
    ask(page, stream_server, "markdown 60")
    answer = page.locator('[data-testid="message"][data-role="agent"]')
    expect(answer).to_contain_text(END, timeout=30_000)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    # Every finished block is in the finished part; the page assembled it from the frames it got.
    expect(answer.locator(".md-done h2")).to_have_count(15)
    expect(answer.locator(".md-done pre")).to_have_count(15)
    streamed = answer_html(page)
    screenshot(page, "streamed-markdown")
    reload(page)
    expect(page.locator('[data-testid="message"][data-role="agent"]')).to_contain_text(END)
    assert answer_html(page) == streamed


@pytest.mark.parametrize("prompt", ["markdown 9", "big 300000"], ids=["markdown", "huge-chunk"])
@pytest.mark.parametrize("size", [(1280, 800), (390, 844)], ids=["desktop", "phone"])
def test_screenshots_of_a_streamed_answer(
    browser: Browser, stream_server: LiveServer, size: tuple[int, int], prompt: str
) -> None:
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        ask(page, stream_server, prompt)
        answer = page.locator('[data-testid="message"][data-role="agent"]')
        expect(answer).to_contain_text(END, timeout=30_000)
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            screenshot(page, f"streamed-{prompt.split()[0]}-{width}-{scheme}")
    finally:
        context.close()


def test_a_huge_chunk_shows_as_plain_text_and_the_page_stays_usable(
    page: Page, stream_server: LiveServer
) -> None:
    ask(page, stream_server, "big 300000")
    answer = page.locator('[data-testid="message"][data-role="agent"]')
    expect(answer.locator("pre.plain-text")).to_contain_text(END, timeout=30_000)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    composer = page.get_by_test_id("composer")
    composer.fill("markdown 2")
    composer.press("Enter")
    expect(page.locator('[data-testid="message"][data-role="agent"]')).to_have_count(2, timeout=30_000)


@pytest.mark.parametrize("name", ["constructs", "hostile", "long_code_block", "long_list"])
def test_an_answer_in_random_chunks_ends_as_a_fresh_page_and_a_tab_opened_midway_show_it(
    page: Page, stream_server: LiveServer, name: str
) -> None:
    dialogs: list[str] = []

    def ran(dialog: Dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", ran)
    ask(page, stream_server, f"corpus {name} 5")
    answer = page.locator('[data-testid="message"][data-role="agent"]')
    expect(answer).not_to_be_empty(timeout=30_000)
    midway = page.context.new_page()  # opens while the answer streams: a snapshot, then frames
    midway.goto(page.url)
    for tab in (page, midway):
        expect(tab.locator('[data-testid="message"][data-role="agent"]')).to_contain_text(END, timeout=60_000)
        # The last raw text of a long block is rendered as Markdown a moment after it arrived.
        expect(tab.locator('[data-testid="message"][data-role="agent"] .md-raw')).to_have_count(0)
    streamed, joined = answer_html(page), answer_html(midway)
    reload(page)
    expect(page.locator('[data-testid="message"][data-role="agent"]')).to_contain_text(END)
    assert answer_html(page) == streamed == joined
    assert dialogs == []  # nothing the agent sent ran


def test_a_commands_output_streamed_a_line_at_a_time_is_appended_and_ends_as_a_fresh_page_shows_it(
    page: Page, stream_server: LiveServer
) -> None:
    ask(page, stream_server, "terminal 300 100")  # three seconds of output, a stamped line at a time
    output = page.get_by_test_id("terminal-output")
    expect(output).to_contain_text("test_00001 passed", timeout=30_000)
    # While it runs, what the command writes is appended to the output the card shows, not the card
    # swapped whole for each line; what comes after a line ended is a block of its own, laid out alone
    # (appended as text, each chunk had the whole output laid out again).
    page.wait_for_function(
        """() => {
          const out = document.querySelector('[data-testid=terminal-output]');
          return !!out && out.children.length > 3
            && [...out.children].every((piece) => getComputedStyle(piece).display === 'block');
        }""",
        timeout=30_000,
    )
    expect(page.get_by_test_id("terminal-exit")).to_have_text("Exited with code 0", timeout=30_000)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    card = page.get_by_test_id("tool-call")
    expect(output).to_contain_text("test_00299 passed")
    streamed = str(card.inner_html())
    reload(page)
    expect(page.get_by_test_id("terminal-exit")).to_have_text("Exited with code 0")
    assert str(page.get_by_test_id("tool-call").inner_html()) == streamed
