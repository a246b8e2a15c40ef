"""The three presentations of prompt suggestions (chips, list, ghost text), each keeping every guarantee:
full text before a send on selection, every attachment identified, nothing sent blind, nothing of the
user's discarded. What the agent received is read back from the protocol log.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.support.accessibility import describe, violations
from tests.support.live import LiveServer, serve_in_thread
from tests.support.pages import (
    agent_messages,
    chips,
    choose_style,
    open_app,
    prompt,
    prompts_received,
    reload,
    suggest,
    text,
    user_messages,
)
from tests.support.screenshots import screenshot
from tests.support.suggestion_lists import eighty
from tests.support.workspace import tiny_png

STYLES = ("chips", "list", "ghost")
SELECTABLE = ("chips", "list")  # the styles that show every suggestion as something to select


def use_style(page: Page, style: str) -> None:
    choose_style(page, style)


def link(root: Path, relative: str) -> dict[str, Any]:
    path = root / relative
    return {"type": "resource_link", "name": path.name, "uri": path.as_uri()}


def file_in_the_middle(root: Path) -> list[dict[str, Any]]:
    return [text("Explain "), link(root, "README.md"), text(" and list the files next to it")]


@pytest.mark.parametrize("style", STYLES)
def test_each_style_shows_the_list_in_order_with_files_identified_before_sending(
    page: Page, server: LiveServer, e2e_workspace: Path, style: str
) -> None:
    open_app(page, server)
    use_style(page, style)
    suggest(page, [text("Count to 2")], file_in_the_middle(e2e_workspace), [text("List files")])
    readme = (e2e_workspace / "README.md").as_uri()
    if style == "ghost":
        entries = page.get_by_test_id("ghost-entry")
        expect(entries.nth(0)).to_be_visible()
        expect(entries.nth(0)).to_have_text("Count to 2")
        expect(page.get_by_test_id("ghost-bar")).to_contain_text("1/3")
        page.get_by_test_id("composer").press("Alt+ArrowDown")  # the counter cycles the others
        expect(entries.nth(1)).to_be_visible()
        expect(entries.nth(1)).to_have_text("Explain README.md and list the files next to it")
        expect(page.get_by_test_id("ghost-bar")).to_contain_text("2/3")
        expect(page.get_by_test_id("suggestion")).to_have_count(3)
        expect(chips(page).first).to_be_hidden()
    else:
        expect(chips(page)).to_have_count(3)
        expect(chips(page).nth(0)).to_have_text("Count to 2")
        expect(chips(page).nth(1)).to_have_text("Explain README.md and list the files next to it")
        expect(chips(page).nth(2)).to_have_text("List files")
        expect(page.get_by_test_id("suggestion-attachment")).to_be_hidden()  # folded: the inline token
        chips(page).nth(1).click()  # opens it, with its file in full
        expect(chips(page).nth(1)).to_have_attribute("data-truncated", "false")
    attachment = page.get_by_test_id("suggestion-attachment")
    expect(attachment).to_be_visible()
    expect(attachment).to_have_attribute("data-kind", "resource_link")
    expect(attachment).to_contain_text("README.md")  # a workspace file by its path there
    expect(attachment).to_have_attribute("title", readme)  # its whole URI on hover
    expect(user_messages(page)).to_have_count(1)  # seen, not sent
    reload(page)  # the choice is remembered in this browser
    expect(page.get_by_test_id("suggestion-style")).to_have_value(style)
    expect(page.get_by_test_id("suggestions")).to_have_attribute("data-style", style)


@pytest.mark.parametrize("style", SELECTABLE)
def test_clicking_a_suggestion_sends_exactly_the_prompt_the_agent_wrote(
    page: Page, server: LiveServer, e2e_workspace: Path, style: str
) -> None:
    open_app(page, server)
    use_style(page, style)
    blocks = file_in_the_middle(e2e_workspace)
    suggest(page, [text("Count to 2")], blocks)
    chips(page).nth(1).click()  # the first click opens it: its file in full
    expect(page.get_by_test_id("suggestion-attachment")).to_be_visible()
    expect(user_messages(page)).to_have_count(1)
    chips(page).nth(1).click()
    expect(user_messages(page)).to_have_count(2)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    assert prompts_received(page, server)[-1] == blocks


@pytest.mark.parametrize("style", SELECTABLE)
def test_a_truncated_suggestion_expands_on_the_first_click_and_sends_only_from_there(
    page: Page, server: LiveServer, style: str
) -> None:
    open_app(page, server)
    use_style(page, style)
    prompt(page, "/suggest-demo long")
    long = chips(page).first
    expect(long).to_have_attribute("data-truncated", "true")
    tail = long.get_by_text("I want to read the checklist before we start")
    expect(tail).to_be_hidden()
    long.click()
    expect(long).to_have_attribute("data-truncated", "false")
    expect(tail).to_be_visible()
    expect(user_messages(page)).to_have_count(1)  # the first click only showed it all
    screenshot(page, f"suggestions/state-expanded-{style}", element=page.locator("footer.composer-area"))
    long.click()
    expect(user_messages(page)).to_have_count(2)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    (sent,) = prompts_received(page, server)[-1]
    assert sent["text"].endswith("I want to read the checklist before we start.\n")
    assert len(sent["text"]) > 1400


def test_auto_send_skips_a_suggestion_whose_text_is_not_all_shown(page: Page, server: LiveServer) -> None:
    page.clock.install()
    open_app(page, server)
    page.get_by_test_id("auto-send").check()
    prompt(page, "/suggest-demo long")
    expect(page.get_by_test_id("auto-send-skipped")).to_be_visible()
    page.clock.run_for(10_000)
    expect(page.get_by_test_id("auto-send-countdown")).to_be_hidden()
    expect(user_messages(page)).to_have_count(1)


@pytest.mark.parametrize("style", STYLES)
def test_auto_send_marks_the_suggestion_it_will_send(page: Page, server: LiveServer, style: str) -> None:
    page.clock.install()
    open_app(page, server)
    use_style(page, style)
    # The subject is the mark, not the delay (tests/js and the tests above time it): a countdown as long as
    # a minute, so that the state's two accessibility scans cannot outlast it on a busy machine.
    page.evaluate("window.webclient.suggestionPolicy.AUTO_SEND_DELAY_S = 60")
    page.get_by_test_id("auto-send").check()
    suggest(page, [text("Count to 2")], [text("List files")])
    expect(page.get_by_test_id("auto-send-countdown")).to_be_visible()
    marked = page.locator('[data-countdown="true"]')
    shown = page.get_by_test_id("ghost-entry") if style == "ghost" else chips(page)
    expect(shown.first).to_have_attribute("data-countdown", "true")
    expect(shown.first).to_be_visible()
    expect(chips(page).nth(1)).not_to_have_attribute("data-countdown", "true")
    screenshot(page, f"suggestions/state-countdown-{style}", element=page.locator("footer.composer-area"))
    page.get_by_test_id("auto-send-cancel").click()
    expect(marked).to_have_count(0)
    expect(user_messages(page)).to_have_count(1)


@pytest.mark.parametrize("how", ["ghost-tab", "chips-edit", "list-key-e"])
def test_taken_into_the_composer_and_sent_unchanged_is_the_suggestion_deep_equal(
    page: Page, server: LiveServer, e2e_workspace: Path, how: str
) -> None:
    style, _, gesture = how.partition("-")
    open_app(page, server)
    use_style(page, style)
    blocks = file_in_the_middle(e2e_workspace)
    suggest(page, blocks, [text("Count to 2")])
    composer = page.get_by_test_id("composer")
    if gesture == "tab":
        composer.focus()
        page.keyboard.press("Tab")
    elif gesture == "edit":
        chips(page).first.hover()
        page.get_by_test_id("suggestion-edit").first.click()
    else:
        chips(page).first.focus()
        page.keyboard.press("e")
    expect(composer).to_have_value("Explain ⟦README.md⟧ and list the files next to it")
    expect(composer).to_be_focused()
    pill = page.get_by_test_id("composer-attachment")
    expect(pill).to_contain_text("README.md")
    expect(pill.get_by_title((e2e_workspace / "README.md").as_uri()).first).to_be_attached()
    # The reference is drawn as a token where it stands.
    expect(page.get_by_test_id("composer-tokens").locator("mark")).to_have_text("⟦README.md⟧")
    expect(page.get_by_test_id("suggestions")).to_be_hidden()
    screenshot(page, f"suggestions/state-taken-{style}", element=page.locator("footer.composer-area"))
    composer.press("Enter")
    expect(user_messages(page)).to_have_count(2)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    assert prompts_received(page, server)[-1] == blocks
    expect(agent_messages(page).last).to_contain_text("Shop")  # the agent read the linked README


@pytest.mark.parametrize("style", STYLES)
def test_the_users_own_image_survives_and_no_suggestion_is_offered_over_it(
    page: Page, server: LiveServer, tmp_path: Path, style: str
) -> None:
    image = tmp_path / "red.png"
    image.write_bytes(tiny_png())
    open_app(page, server)
    use_style(page, style)
    suggest(page, [text("Count to 2")])
    offer = page.get_by_test_id("ghost-text") if style == "ghost" else page.get_by_test_id("suggestions")
    expect(offer).to_be_visible()
    page.locator("#image-input").set_input_files(str(image))
    pill = page.get_by_test_id("composer-attachment")
    expect(pill).to_have_count(1)
    expect(page.get_by_test_id("ghost-text")).to_be_hidden()
    expect(page.get_by_test_id("suggestions")).to_be_hidden()
    composer = page.get_by_test_id("composer")
    composer.focus()
    page.keyboard.press("Tab")  # takes nothing: the composer is not empty
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("ArrowUp")  # and offers nothing to move to
    expect(composer).to_be_focused()
    expect(composer).to_have_value("")
    expect(pill).to_have_count(1)
    # Removing the image empties the composer: the list comes back.
    pill.get_by_test_id("composer-attachment-remove").click()
    expect(offer).to_be_visible()


@pytest.mark.parametrize("style", STYLES)
def test_escape_hides_the_list_and_suggestions_n_brings_it_back(
    page: Page, server: LiveServer, style: str
) -> None:
    open_app(page, server)
    use_style(page, style)
    suggest(page, [text("Count to 2")], [text("List files")])
    row = page.get_by_test_id("suggestions")
    restore = page.get_by_test_id("suggestions-restore")
    expect(restore).to_be_hidden()
    page.get_by_test_id("composer").press("Escape")
    expect(row).to_be_hidden()
    expect(restore).to_be_visible()
    expect(restore).to_have_text("Suggestions (2)")
    if style == "chips":
        screenshot(page, "suggestions/state-restore", element=page.locator("footer.composer-area"))
    restore.click()
    expect(row).to_be_visible()
    if style == "ghost":
        expect(page.get_by_test_id("ghost-entry").first).to_be_visible()
        expect(page.get_by_test_id("composer")).to_be_focused()
    else:
        expect(chips(page).first).to_be_focused()
    expect(restore).to_be_hidden()


@pytest.mark.parametrize("style", STYLES)
def test_emptying_the_composer_again_brings_the_list_back(page: Page, server: LiveServer, style: str) -> None:
    open_app(page, server)
    use_style(page, style)
    suggest(page, [text("Count to 2")])
    shown = page.get_by_test_id("ghost-entry").first if style == "ghost" else chips(page).first
    composer = page.get_by_test_id("composer")
    composer.press_sequentially("my own")
    expect(shown).to_be_hidden()
    composer.press("Control+a")
    composer.press("Backspace")
    expect(shown).to_be_visible()
    expect(shown).to_have_text("Count to 2")


@pytest.mark.parametrize("style", SELECTABLE)
def test_keyboard_only_from_the_composer_to_a_sent_suggestion_and_back(
    page: Page, server: LiveServer, style: str
) -> None:
    open_app(page, server)
    use_style(page, style)
    suggest(page, [text("Count to 2")], [text("Count to 3")])
    composer = page.get_by_test_id("composer")
    composer.focus()
    page.keyboard.press("ArrowUp")  # from the empty composer to the suggestions
    expect(chips(page).nth(0)).to_be_focused()
    page.keyboard.press("ArrowDown" if style == "list" else "ArrowRight")
    expect(chips(page).nth(1)).to_be_focused()
    page.keyboard.press("Escape")  # and back, the list still offered
    expect(composer).to_be_focused()
    expect(page.get_by_test_id("suggestions")).to_be_visible()
    page.keyboard.press("Shift+Tab")  # the row is one tab stop, and it remembers where you were
    expect(chips(page).nth(1)).to_be_focused()
    page.keyboard.press("Enter")
    expect(user_messages(page)).to_have_count(2)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    assert prompts_received(page, server)[-1] == [text("Count to 3")]


def test_more_opens_every_suggestion_in_the_sheet_and_close_folds_it(page: Page, server: LiveServer) -> None:
    open_app(page, server)
    prompts = eighty(40)
    suggest(page, *[[text(p)] for p in prompts])
    visible = page.locator('[data-testid="suggestion"]:visible')
    more = page.get_by_test_id("suggestions-more")
    expect(more).to_be_visible()
    shown = visible.count()
    assert 0 < shown < 40  # as many as fit in the room the conversation does not need
    expect(more).to_have_text(f"+{40 - shown} more")
    more.click()
    expect(visible).to_have_count(40)
    expect(more).to_be_hidden()
    expect(chips(page).nth(shown)).to_be_focused()  # the first one that did not fit
    expect(chips(page).nth(39)).to_have_text(prompts[39])
    page.keyboard.press("Escape")  # folds the sheet, focus stays on that suggestion's place in the row
    expect(visible).to_have_count(shown)
    expect(user_messages(page)).to_have_count(1)


@pytest.fixture
def list_server(e2e_workspace: Path, tmp_path: Path) -> Iterator[LiveServer]:
    state = {"WEBCLIENT_DEMO_STATE_DIR": str(tmp_path / "state")}
    style = ["--suggestion-style", "list"]
    with serve_in_thread(cwd=e2e_workspace, extra_args=style, agent_env=state) as live:
        yield live


def test_the_servers_suggestion_style_is_the_default_until_the_browser_chooses(
    page: Page, list_server: LiveServer
) -> None:
    open_app(page, list_server)
    prompt(page, "/suggest-demo short")
    expect(page.get_by_test_id("suggestions")).to_have_attribute("data-style", "list")
    expect(page.get_by_test_id("suggestion-style")).to_have_value("list")
    expect(page.get_by_test_id("suggestions")).to_have_attribute("aria-orientation", "vertical")


# What this feature draws: a violation elsewhere on the page (header, sidebar, the page's colour tokens) is
# not a property of the suggestion states and is checked where that part of the page is tested.
OURS = ", ".join(
    (
        "#suggestions",
        "#ghost-text",
        "#suggestions-restore",
        ".auto-send-note",
        "#composer-attachments",
        ".composer-options",
        "#composer",
    )
)


def violations_in_suggestions(page: Page) -> list[dict[str, Any]]:
    found = []
    for violation in violations(page):
        nodes = [n for n in violation["nodes"] if page.evaluate(_INSIDE, [n["target"][0], OURS])]
        if nodes:
            found.append({**violation, "nodes": nodes})
    return found


_INSIDE = """([target, ours]) => {
    const el = document.querySelector(target);
    return !!el && !!el.closest(ours);
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_suggestion_states_have_no_serious_accessibility_violations(
    page: Page, server: LiveServer, scheme: str
) -> None:
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    open_app(page, server)
    prompt(page, "/suggest-demo files")
    for style in STYLES:
        use_style(page, style)
        if style != "ghost":
            expect(chips(page).first).to_have_attribute("data-truncated", "true")
            chips(page).first.click()  # opened: its file in full
        expect(page.get_by_test_id("suggestion-attachment").first).to_be_visible()
        found = violations_in_suggestions(page)
        assert not found, f"{style}, {scheme}:\n{describe(found)}"
    prompt(page, "/suggest-demo many")
    use_style(page, "chips")
    # The list comes a moment after the turn ends: wait until the many have replaced the files.
    expect(page.locator('#suggestions [data-testid="suggestion-attachment"]')).to_have_count(0)
    expect(page.locator('#suggestions [data-testid="suggestion"]').nth(7)).to_be_attached()
    page.get_by_test_id("composer").press("Escape")
    expect(page.get_by_test_id("suggestions-restore")).to_be_visible()
    found = violations_in_suggestions(page)
    assert not found, f"restore, {scheme}:\n{describe(found)}"


VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
PRESETS = ("short", "files", "image", "long", "many", "hostile")


@pytest.mark.parametrize("preset", PRESETS)
def test_each_preset_shows_in_every_style_at_each_size_and_scheme_and_is_shot_for_the_docs(
    page: Page, server: LiveServer, preset: str
) -> None:
    """Each preset in each style, light and dark, desktop and phone: the pictures in
    docs/presenting-suggestions.md when screenshots are taken."""
    open_app(page, server)
    prompt(page, f"/suggest-demo {preset}")
    area = page.locator("footer.composer-area")
    for device, size in VIEWPORTS.items():
        page.set_viewport_size(size)  # type: ignore[arg-type]
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            for style in STYLES:
                use_style(page, style)
                shown = page.get_by_test_id("ghost-entry") if style == "ghost" else chips(page)
                expect(shown.first).to_be_visible()
                screenshot(page, f"suggestions/{preset}-{style}-{device}-{scheme}", element=area)
