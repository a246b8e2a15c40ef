"""A study's preset that places the suggestions under the agent's last answer, in a real browser with the
demo agent: the list sits in the conversation after the answer, follows the conversation to its bottom,
opens a long suggestion in full before sending it, sends by one click, and goes back above the composer
in a session without that preset. Scanned with axe-core (and shot) on a desktop and a phone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.support.browser import UI_TIMEOUT_MS, sign_in
from tests.support.layouts import Layout, shoot
from tests.support.live import LiveServer
from tests.support.pages import agent_messages, chips, open_app, prompt, user_messages
from tests.support.polling import wait_until
from tests.support.studies import study_server as study_server_of
from tests.support.workspace import fill_workspace

UNDER = [
    {"name": "chips-under", "style": "chips", "placement": "under_answer"},
    {"name": "list-under", "style": "list", "placement": "under_answer"},
]


@pytest.fixture(scope="module")
def study_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    root = tmp_path_factory.mktemp("under-answer")
    with study_server_of(
        {"name": "under-the-answer", "presets": UNDER}, root, fill_workspace(root / "shop")
    ) as live:
        yield live


def area_position(page: Page) -> str:
    """Where the suggestions area is: "under-answer" (after the transcript's last entry) or "composer"."""
    return str(
        page.get_by_test_id("suggestions-area").evaluate(
            """el => {
                const slot = el.closest('[data-role="suggestions-under-answer"]');
                if (!slot) { return el.closest('.composer-area') ? 'composer' : 'elsewhere'; }
                const transcript = document.getElementById('transcript');
                const after = transcript.compareDocumentPosition(slot) & Node.DOCUMENT_POSITION_FOLLOWING;
                return after && slot.closest('#conversation') ? 'under-answer' : 'misplaced';
            }"""
        )
    )


def at_bottom(page: Page) -> bool:
    return bool(
        page.get_by_test_id("conversation").evaluate(
            "el => el.scrollHeight - el.scrollTop - el.clientHeight < 4"
        )
    )


def test_suggestions_under_the_last_answer_follow_it_and_send_as_anywhere(
    browser: Browser, study_server: LiveServer, layout: Layout
) -> None:
    context = browser.new_context(**layout.context_options())
    sign_in(context, study_server)
    page = context.new_page()
    page.set_default_timeout(UI_TIMEOUT_MS)
    try:
        under_the_answer(page, study_server, layout)
    finally:
        context.close()


def under_the_answer(page: Page, server: LiveServer, layout: Layout) -> None:
    open_app(page, server)
    page.get_by_test_id("study-join").click()
    expect(page.get_by_test_id("study-banner")).to_have_attribute("data-state", "recording")
    prompt(page, "help")
    suggestions = page.get_by_test_id("suggestions")
    expect(suggestions).to_have_attribute("data-placement", "under_answer")
    expect(chips(page).first).to_be_visible()
    wait_until(lambda: area_position(page) == "under-answer", 15, "the suggestions under the last answer")
    # Below the answer, not above it: the list's top is under the last agent message's bottom.
    answer = agent_messages(page).last.bounding_box()
    row = suggestions.bounding_box()
    assert answer is not None and row is not None and row["y"] >= answer["y"] + answer["height"] - 1
    wait_until(lambda: at_bottom(page), 15, "the conversation to follow to its bottom")
    shoot(page, "study/under-answer", layout)

    # One click sends a short one, as anywhere; the next answer's list is under that answer.
    sent = chips(page).first.inner_text().strip()
    before = user_messages(page).count()
    chips(page).first.click()
    expect(user_messages(page)).to_have_count(before + 1)
    expect(user_messages(page).last).to_contain_text(sent[:20])
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    expect(chips(page).first).to_be_visible()
    wait_until(lambda: area_position(page) == "under-answer", 15, "the next list under the next answer")
    wait_until(lambda: at_bottom(page), 15, "the conversation to follow to its bottom again")

    # A long one opens the sheet first, over the conversation and inside the window, then sends whole.
    prompt(page, "/suggest-demo long")
    collapsed = page.locator('[data-testid="suggestion"][data-truncated="true"]').first
    expect(collapsed).to_be_visible()
    long_one = chips(page).nth(int(collapsed.get_attribute("data-index") or "0"))
    before = user_messages(page).count()
    long_one.click()
    expect(suggestions).to_have_attribute("data-expanded", "true")
    expect(long_one).to_have_attribute("data-truncated", "false")
    sheet = suggestions.bounding_box()
    viewport = page.viewport_size
    assert sheet is not None and viewport is not None
    assert sheet["y"] >= 0 and sheet["y"] + sheet["height"] <= viewport["height"] + 1, sheet
    expect(user_messages(page)).to_have_count(before)  # opening sent nothing
    shoot(page, "study/under-answer-sheet", layout)
    long_one.click()
    expect(user_messages(page)).to_have_count(before + 1)


def test_without_the_preset_the_suggestions_stay_above_the_composer(
    sized_page: Page, server: LiveServer
) -> None:
    """A session without a study's preset shows the page's own presentation: above the composer."""
    page = sized_page
    open_app(page, server)
    prompt(page, "help")
    expect(chips(page).first).to_be_visible()
    assert page.get_by_test_id("suggestions").get_attribute("data-placement") is None
    assert area_position(page) == "composer"
