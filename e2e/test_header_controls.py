"""The session header's mode and config selectors and the slash-command menu, in a real browser."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from tests.support.layouts import Layout, shoot
from tests.support.live import LiveServer
from tests.support.pages import open_app, prompt
from tests.support.screenshots import screenshot


def menu_items(page: Page) -> Locator:
    return page.locator('[data-testid="slash-command"]:visible')


def open_menu(page: Page) -> Locator:
    composer = page.get_by_test_id("composer")
    expect(page.locator('[data-testid="slash-command"][data-name="help"]')).to_have_count(1)
    composer.fill("/")
    expect(page.get_by_test_id("slash-menu")).to_be_visible()
    return composer


def test_slash_opens_the_menu_with_descriptions_and_input_hints(page: Page, server: LiveServer) -> None:
    open_app(page, server)
    open_menu(page)
    show = page.locator('[data-testid="slash-command"][data-name="show"]')
    expect(show).to_contain_text("/show")
    expect(show).to_contain_text("Show a file from the workspace")
    expect(show).to_contain_text("file path")
    expect(menu_items(page).first).to_have_attribute("aria-selected", "true")


def test_typing_filters_and_enter_inserts_the_command(page: Page, server: LiveServer) -> None:
    open_app(page, server)
    composer = open_menu(page)
    composer.press_sequentially("sh")
    expect(menu_items(page)).to_have_count(1)
    expect(menu_items(page)).to_have_attribute("data-name", "show")
    composer.press("Enter")
    expect(composer).to_have_value("/show ")
    expect(page.get_by_test_id("slash-menu")).to_be_hidden()
    expect(page.get_by_test_id("slash-hint")).to_contain_text("file path")
    expect(page.locator('[data-testid="message"][data-role="user"]')).to_have_count(0)  # nothing sent
    composer.press_sequentially("README.md")
    expect(page.get_by_test_id("slash-hint")).to_be_hidden()


def test_arrow_keys_move_the_choice_and_tab_takes_it(page: Page, server: LiveServer) -> None:
    open_app(page, server)
    composer = open_menu(page)
    composer.press_sequentially("s")  # search, show, slow, suggest, suggest-demo, suggest-delay
    first, second = menu_items(page).nth(0), menu_items(page).nth(1)
    expect(first).to_have_attribute("aria-selected", "true")
    composer.press("ArrowDown")
    expect(second).to_have_attribute("aria-selected", "true")
    expect(first).to_have_attribute("aria-selected", "false")
    name = second.get_attribute("data-name")
    composer.press("Tab")
    expect(composer).to_have_value(f"/{name} ")
    expect(composer).to_be_focused()


def test_the_open_menu_is_a_tab_stop_whose_arrow_keys_and_enter_choose(
    page: Page, server: LiveServer
) -> None:
    open_app(page, server)
    composer = open_menu(page)
    composer.press("Shift+Tab")
    listbox = page.get_by_test_id("slash-menu")
    expect(listbox).to_be_focused()
    second = menu_items(page).nth(1)
    listbox.press("ArrowDown")
    expect(second).to_have_attribute("aria-selected", "true")
    expect(listbox).to_have_attribute("aria-activedescendant", second.get_attribute("id") or "")
    name = second.get_attribute("data-name")
    listbox.press("Enter")
    expect(composer).to_have_value(f"/{name} ")
    expect(composer).to_be_focused()
    expect(listbox).to_be_hidden()


def test_escape_closes_the_menu_and_a_space_keeps_it_closed(page: Page, server: LiveServer) -> None:
    open_app(page, server)
    composer = open_menu(page)
    composer.press("Escape")
    expect(page.get_by_test_id("slash-menu")).to_be_hidden()
    expect(composer).to_have_value("/")
    composer.press_sequentially("he")
    expect(page.get_by_test_id("slash-menu")).to_be_visible()
    composer.fill("not a /command")
    expect(page.get_by_test_id("slash-menu")).to_be_hidden()


def test_changing_the_mode_select_switches_the_agents_mode(page: Page, server: LiveServer) -> None:
    open_app(page, server)
    other = page.context.new_page()  # a second tab sees only what the server confirmed
    open_app(other, server)
    select = page.get_by_test_id("mode-select")
    expect(select).to_have_value("ask")
    expect(select.locator("option")).to_have_text(["Ask", "Code", "Architect"])
    code_help = "Make changes to files, still asking permission to write"
    expect(select.locator('option[value="code"]')).to_have_attribute("title", code_help)
    select.select_option("architect")
    expect(other.get_by_test_id("mode-select")).to_have_value("architect")
    expect(page.get_by_test_id("mode-select")).to_have_value("architect")


def test_a_mode_switched_by_the_agent_shows_in_the_header(page: Page, server: LiveServer) -> None:
    open_app(page, server)
    prompt(page, "/mode code")
    expect(page.get_by_test_id("mode-select")).to_have_value("code")


def test_config_options_select_and_toggle(page: Page, server: LiveServer) -> None:
    open_app(page, server)
    other = page.context.new_page()
    open_app(other, server)

    def option(tab: Page, config_id: str) -> Locator:
        return tab.locator(f'[data-testid="config-option"][data-option-id="{config_id}"]')

    expect(option(page, "model")).to_have_value("fast")
    option(page, "model").select_option("thorough")
    expect(option(other, "model")).to_have_value("thorough")
    expect(option(page, "verbose")).not_to_be_checked()
    option(page, "verbose").check()
    expect(option(other, "verbose")).to_be_checked()
    option(page, "verbose").uncheck()
    expect(option(other, "verbose")).not_to_be_checked()
    other.close()
    open_menu(page)
    screenshot(page, "header-controls")


def test_after_an_answer_the_header_stays_one_line_and_the_title_and_usage_can_be_read(
    sized_page: Page, server: LiveServer, layout: Layout
) -> None:
    page = sized_page
    open_app(page, server)
    prompt(page, "show README.md")
    expect(page.get_by_test_id("page-title")).to_have_text("show README.md")
    usage = page.get_by_test_id("usage")
    expect(usage).to_contain_text("context")  # for a screen reader, and in full in the phone's menu
    expect(usage).to_have_attribute("title", re.compile(r"^Context window: [\d,]+ of [\d,]+ tokens used"))
    header = page.locator("#session-header").bounding_box()
    assert header is not None and header["height"] < 60, f"the header wrapped: {header}"
    if not layout.phone:
        # Beside the sidebar at 1280 px, the title shows whole and the usage shows its numbers.
        title_cut = page.get_by_test_id("page-title").evaluate("el => el.scrollWidth > el.clientWidth")
        assert not title_cut, "the title is cut"
        assert not usage.evaluate("el => el.scrollWidth > el.clientWidth"), "the usage is cut"
        expect(usage).to_have_attribute("title", re.compile(r"tokens used · [\d.]+ \w+$"))  # with its cost
    shoot(page, "header-after-answer", layout)
