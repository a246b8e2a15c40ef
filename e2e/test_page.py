"""The page in front of people: welcome, following the conversation, the turn in one place, notices,
the inspector beside the conversation, and the draft kept across a reload. At a desktop's and a phone's
size, each state shot and scanned with axe-core in light and dark."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from tests.support.layouts import Layout, assert_accessible, shoot
from tests.support.live import LiveServer, scripted_agent, serve_in_thread
from tests.support.pages import agent_messages, dismiss_chips, open_app, prompt, reload, user_messages
from tests.support.polling import wait_until


def at_bottom(page: Page) -> bool:
    return bool(
        page.get_by_test_id("conversation").evaluate(
            "el => el.scrollHeight - el.scrollTop - el.clientHeight < 4"
        )
    )


def scroll(page: Page) -> str:
    """The conversation's scroll position and following state, for a failure's message."""
    return str(
        page.get_by_test_id("conversation").evaluate(
            "el => ({top: el.scrollTop, height: el.scrollHeight, view: el.clientHeight,"
            " following: el.getAttribute('data-following')})"
        )
    )


def test_an_empty_session_welcomes_with_the_demo_tour_and_a_starter_fills_the_composer(
    sized_page: Page, server: LiveServer, layout: Layout
) -> None:
    page = sized_page
    open_app(page, server)
    welcome = page.get_by_test_id("welcome")
    expect(welcome).to_be_visible()
    expect(welcome).to_contain_text("webclient demo agent")  # its name, from its initialize answer
    expect(welcome).to_contain_text("Architect")  # and its modes
    starters = page.get_by_test_id("starter")
    expect(starters).to_have_count(6)
    assert_accessible(page, "empty session")
    shoot(page, "welcome", layout)

    # Dark follows the system, native controls with it; the focus ring shows on what the keyboard reaches.
    page.emulate_media(color_scheme="dark")
    root = page.evaluate(
        "() => { const s = getComputedStyle(document.documentElement);"
        " return [s.colorScheme, s.backgroundColor]; }"
    )
    assert root == ["light dark", "rgb(23, 24, 27)"], root
    page.emulate_media(color_scheme="light")
    page.get_by_test_id("composer").focus()
    page.keyboard.press("Shift+Tab")
    focused = starters.last
    expect(focused).to_be_focused()
    ring = focused.evaluate(
        "el => { const s = getComputedStyle(el); return [s.outlineStyle, s.outlineWidth]; }"
    )
    assert ring == ["solid", "3px"], ring

    starters.filter(has_text="List the files").click()
    composer = page.get_by_test_id("composer")
    expect(composer).to_have_value("list files")
    expect(composer).to_be_focused()
    expect(user_messages(page)).to_have_count(0)  # a starter only fills the composer
    page.get_by_test_id("send").click()
    expect(agent_messages(page).last).to_contain_text("README.md")
    expect(welcome).to_be_hidden()


def test_another_agent_is_welcomed_with_its_own_commands(
    sized_page: Page, e2e_workspace: Path, layout: Layout
) -> None:
    page = sized_page
    with serve_in_thread(agent=scripted_agent("commands_agent"), cwd=e2e_workspace) as server:
        open_app(page, server)
        welcome = page.get_by_test_id("welcome")
        expect(welcome).to_contain_text("scripted 0")
        expect(welcome).to_contain_text("Available commands")
        expect(welcome).not_to_contain_text("tour")
        starters = page.get_by_test_id("starter")
        expect(starters).to_have_count(2)
        expect(starters.first).to_contain_text("Review the staged changes")
        assert_accessible(page, "empty session, another agent")
        shoot(page, "welcome-commands", layout)
        starters.first.click()
        expect(page.get_by_test_id("composer")).to_have_value("/review ")


def test_the_conversation_follows_and_shows_latest_when_scrolled_up_and_opens_at_the_bottom(
    sized_page: Page, server: LiveServer, layout: Layout
) -> None:
    page = sized_page
    open_app(page, server)
    for text in ("help", "list files", "help"):
        prompt(page, text)
    conversation = page.get_by_test_id("conversation")
    assert conversation.evaluate("el => el.scrollHeight > el.clientHeight * 1.5"), "not enough to scroll"
    expect(agent_messages(page).last).to_be_in_viewport()  # pinned: the latest answer is in view
    # The offer of suggestions below shrinks the view after the answer; following catches up a frame later.
    wait_until(lambda: at_bottom(page), 15, "the conversation to follow to its bottom", lambda: scroll(page))

    # Scrolled up, new content does not pull the reader down; a "Latest" button offers the way back.
    page.get_by_test_id("composer").fill("count to 15")
    page.get_by_test_id("composer").press("Enter")
    conversation.evaluate("el => { el.scrollTop = 0; el.dispatchEvent(new Event('scroll')); }")
    jump = page.get_by_test_id("jump-latest")
    expect(jump).to_be_visible()
    assert conversation.evaluate("el => el.scrollTop") < 40
    shoot(page, "latest", layout)
    jump.click()
    expect(jump).to_be_hidden()
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    expect(agent_messages(page).last).to_contain_text("15")
    expect(agent_messages(page).last).to_be_in_viewport()

    # Sending while scrolled up brings the new prompt into view.
    conversation.evaluate("el => { el.scrollTop = 0; el.dispatchEvent(new Event('scroll')); }")
    prompt(page, "list files")
    expect(user_messages(page).last).to_be_in_viewport()

    reload(page)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    expect(user_messages(page).last).to_be_in_viewport()
    expect(jump).to_be_hidden()


def test_a_reader_at_the_bottom_stays_there_when_the_view_shrinks_with_no_message(
    sized_page: Page, server: LiveServer
) -> None:
    """The suggestions are folded to what fits a frame after their message, and the phone's keyboard
    takes room: the view shrinks with nothing arriving, and following must not wait for a next message."""
    page = sized_page
    open_app(page, server)
    for text in ("help", "list files"):
        prompt(page, text)
    wait_until(lambda: at_bottom(page), 15, "the conversation to follow to its bottom", lambda: scroll(page))
    # A row below the conversation grows by 160 px; no message comes from the server.
    page.get_by_test_id("conversation").evaluate(
        "el => { const row = document.createElement('div'); row.style.height = '160px';"
        " row.setAttribute('data-testid', 'grown-row'); el.after(row); }"
    )
    expect(page.get_by_test_id("grown-row")).to_be_attached()
    wait_until(
        lambda: at_bottom(page), 15, "the conversation to follow after shrinking", lambda: scroll(page)
    )
    expect(page.get_by_test_id("jump-latest")).to_be_hidden()


def test_a_turn_keeps_the_plan_in_view_the_permission_on_its_tool_call_and_each_diff_once(
    sized_page: Page, server: LiveServer, layout: Layout
) -> None:
    page = sized_page
    open_app(page, server)
    composer = page.get_by_test_id("composer")
    composer.fill("edit src/cart.py")
    composer.press("Enter")
    permission = page.get_by_test_id("permission")
    expect(permission).to_have_attribute("data-state", "pending")
    # The request sits directly on the tool call it is about.
    tool_id = permission.get_attribute("data-tool-call-id")
    assert tool_id
    before = permission.evaluate(
        "el => el.previousElementSibling && el.previousElementSibling.dataset.toolCallId"
    )
    assert before == tool_id
    # The plan stays in view while the permission waits, even scrolled to the bottom.
    page.get_by_test_id("conversation").evaluate("el => { el.scrollTop = el.scrollHeight; }")
    expect(page.get_by_test_id("plan")).to_be_in_viewport()
    expect(permission.locator("button").first).to_be_in_viewport()
    assert_accessible(page, "a streamed answer with tool calls and a permission")
    shoot(page, "turn", layout)

    permission.locator('[data-option-id="apply"]').click()
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    write = page.get_by_test_id("file-write")
    expect(write).to_have_attribute("data-diff-shown", "true")
    expect(page.locator("#transcript pre.diff")).to_have_count(1)  # the edit's diff, shown once


def test_notices_speak_plainly_collapse_repeats_and_keep_the_detail_one_click_away(
    sized_page: Page, server: LiveServer, layout: Layout
) -> None:
    page = sized_page
    open_app(page, server)
    prompt(page, "/suggest-demo invalid")
    notice = page.get_by_test_id("notice")
    expect(notice).to_have_count(1)
    count = int(notice.get_attribute("data-count") or "0")
    assert count >= 2, "the preset breaks several rules: one notice, counted"
    expect(notice.get_by_test_id("notice-count")).to_have_text(f"\u00d7{count}")
    expect(notice.locator(".notice-text")).to_contain_text("left out")
    technical = notice.locator(".notice-technical").first
    expect(technical).to_be_hidden()
    notice.get_by_text("Details").click()
    expect(technical).to_be_visible()
    expect(technical).to_contain_text("prompt suggestions:")
    notice.scroll_into_view_if_needed()
    shoot(page, "notices", layout)


def test_the_inspector_opens_beside_the_conversation_and_leaves_the_composer_usable(
    sized_page: Page, fresh_server: LiveServer, layout: Layout
) -> None:
    # A server of its own: on the shared one, the connection-wide messages of every earlier test (a
    # `session/list` after each turn) fill the panel to its 500 entries, which costs seconds to scan.
    page = sized_page
    open_app(page, fresh_server)
    prompt(page, "help")
    dismiss_chips(page)
    if layout.phone:
        page.get_by_test_id("header-menu").click()
    page.get_by_test_id("inspector-toggle").click()
    panel = page.get_by_test_id("inspector")
    expect(panel).to_be_visible()
    expect(page.get_by_test_id("inspector-entry").first).to_be_visible()
    assert_accessible(page, "the inspector open")
    shoot(page, "inspector", layout)
    if layout.phone:  # a drawer over the page: closing it gives the page back
        page.get_by_test_id("inspector-close").click()
        expect(panel).to_be_hidden()
    else:  # a side panel: the composer stays in view and uncovered
        panel_box = panel.bounding_box()
        composer_box = page.get_by_test_id("composer").bounding_box()
        assert panel_box and composer_box
        assert composer_box["x"] + composer_box["width"] <= panel_box["x"]
    composer = page.get_by_test_id("composer")
    composer.click()
    composer.fill("list files")
    composer.press("Enter")
    expect(user_messages(page)).to_have_count(2)


def test_the_draft_survives_a_reload_and_goes_once_sent(sized_page: Page, server: LiveServer) -> None:
    page = sized_page
    open_app(page, server)
    composer = page.get_by_test_id("composer")
    composer.fill("a thought I do not want to lose")
    reload(page)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    expect(composer).to_have_value("a thought I do not want to lose")
    composer.press("Enter")
    expect(user_messages(page)).to_have_count(1)
    reload(page)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    expect(composer).to_have_value("")
