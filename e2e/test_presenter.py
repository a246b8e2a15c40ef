"""Presenter mode, for showing an agent to an audience: one switch kept in the browser (and `--present`,
the default of a browser that has not chosen). It hides the protocol's words (the version badge, the
token usage, the Protocol button behind the ⋯ menu, thoughts as one quiet line), names the session and
the agent in the header, in larger type; and never hides what a person must see to decide: the files a
suggestion sends, hidden characters, a lying link, a long suggestion's collapse, a permission request."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.support.browser import own_demo_server
from tests.support.layouts import DESKTOP, Layout, shoot
from tests.support.live import LiveServer
from tests.support.pages import choose_style, open_app, prompt, reload, suggest, text
from tests.support.suggestion_lists import eighty

shop, demo_state, shared_server = own_demo_server("present", "--present", "--protocol", "2")


def switch(page: Page, layout: Layout) -> None:
    """Turn presenter mode over with its one switch, at the foot of the sessions list."""
    if layout.phone:
        page.get_by_test_id("sessions-toggle").click()
    page.get_by_test_id("present-toggle").click()
    if layout.phone:
        page.keyboard.press("Escape")
        expect(page.get_by_test_id("sidebar")).not_to_be_in_viewport()


def test_presenter_mode_hides_the_protocol_and_never_what_a_person_must_see(
    sized_page: Page, server: LiveServer, layout: Layout
) -> None:
    page = sized_page
    open_app(page, server)
    expect(page.locator("body")).to_have_attribute("data-present", "on")  # the server's --present
    prompt(page, "What can you do?")
    prompt(page, "/suggest-demo hostile")  # hidden characters, a lying link, a payload after 300 characters
    expect(page.locator('#suggestions [data-testid="suggestion"]')).to_have_count(8)

    # Protocol words out of sight; the session and the agent named.
    for testid in ("protocol-version", "usage", "inspector-toggle"):
        expect(page.get_by_test_id(testid)).to_be_hidden()
    expect(page.get_by_test_id("page-title")).to_have_text("What can you do?")
    expect(page.get_by_test_id("agent-name")).to_be_visible()
    expect(page.get_by_test_id("agent-name")).to_contain_text("webclient demo agent")
    thought = page.locator('[data-testid="message"][data-role="thought"]').first
    expect(thought).to_be_visible()
    assert thought.evaluate("el => getComputedStyle(el).borderTopStyle") == "none"
    box = thought.bounding_box()
    assert box is not None and box["height"] < 30, f"a thought takes {box} px"
    root_size = page.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)")
    assert root_size > 17 if not layout.phone else root_size == 16, f"the type is {root_size} px"
    # Never hidden: hidden characters, a lying link's warning and its file, a long suggestion's collapse
    # (each with its suggestion: in the row where it fits, else in the sheet "+N more" opens).
    expect(page.get_by_test_id("suggestion").nth(6)).to_have_attribute("data-truncated", "true")
    shoot(page, "presenter-suggestions", layout)
    page.get_by_test_id("suggestions-more").click()
    for shown in (
        page.get_by_test_id("hidden-chars-warning").first,
        page.get_by_test_id("link-warning").first,
        page.locator("#suggestions .chip-ref-file"),
    ):
        shown.scroll_into_view_if_needed()
        expect(shown).to_be_visible()
    page.keyboard.press("Escape")
    # The inspector is one menu away.
    page.get_by_test_id("header-menu").click()
    expect(page.get_by_test_id("inspector-toggle")).to_be_visible()
    page.get_by_test_id("header-menu").click()

    composer = page.get_by_test_id("composer")
    composer.fill("edit README.md")
    composer.press("Enter")
    permission = page.get_by_test_id("permission")
    expect(permission.locator('[data-option-id="apply"]')).to_be_visible()
    expect(permission.locator('[data-option-id="skip"]')).to_be_visible()
    expect(permission.get_by_test_id("permission-location")).to_be_visible()
    for testid in ("send", "cancel", "composer"):  # nothing pushed off the screen's edge
        expect(page.get_by_test_id(testid)).to_be_in_viewport(ratio=1)
    shoot(page, "presenter-permission", layout)
    permission.locator('[data-option-id="apply"]').click()
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")

    # One switch turns it off, and this browser remembers that over the server's default.
    switch(page, layout)
    expect(page.locator("body")).to_have_attribute("data-present", "off")
    expect(page.get_by_test_id("protocol-version")).to_be_visible()
    reload(page)
    expect(page.locator("body")).to_have_attribute("data-present", "off")
    switch(page, layout)
    expect(page.locator("body")).to_have_attribute("data-present", "on")
    reload(page)
    expect(page.locator("body")).to_have_attribute("data-present", "on")
    expect(page.get_by_test_id("protocol-version")).to_be_hidden()


def test_a_short_list_shows_whole_in_presenter_mode_on_a_laptop(page: Page, server: LiveServer) -> None:
    page.set_viewport_size({"width": DESKTOP.width, "height": DESKTOP.height})
    open_app(page, server)
    expect(page.locator("body")).to_have_attribute("data-present", "on")
    prompts = eighty(4)
    suggest(page, *[[text(p)] for p in prompts])
    for style in ("chips", "list", "ghost"):
        choose_style(page, style)
        page.get_by_test_id("composer").focus()
        room: float = page.evaluate(
            "document.getElementById('conversation').getBoundingClientRect().height / innerHeight"
        )
        assert room >= 0.55, f"{style}: the conversation has {room:.0%}"
        if style != "ghost":
            expect(page.get_by_test_id("suggestions-more")).to_be_hidden()
            expect(page.locator('#suggestions [data-testid="suggestion"]:visible')).to_have_count(4)
        expect(page.locator('[data-testid="suggestion"][data-truncated="true"]')).to_have_count(0)
        shoot(page, f"presenter-fold-{style}", DESKTOP)
