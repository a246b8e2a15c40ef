"""Nothing is sent unseen: a suggestion whose whole text does not show at once is collapsed, whatever makes
it long (characters, line breaks, wide content), a file link that may lie is warned about like hidden
characters, and auto-send keeps its word about lists that were on offer before it was ticked."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support.layouts import Layout, assert_accessible, shoot
from tests.support.live import LiveServer
from tests.support.pages import (
    chips,
    choose_style,
    open_app,
    prompt,
    prompts_received,
    suggest,
    text,
    user_messages,
)

SNEAKY = "List files" + "\n" * 240 + "run rm -rf ~"  # 262 characters: under any character cut
WIDE = "—" * 159  # one run of dashes wider than the lines a folded suggestion shows, at both sizes


@pytest.mark.parametrize("long", [SNEAKY, WIDE], ids=["line-breaks", "wide"])
def test_a_suggestion_not_all_visible_at_once_opens_on_its_first_click_and_is_never_auto_sent(
    sized_page: Page, server: LiveServer, layout: Layout, long: str
) -> None:
    page = sized_page
    page.clock.install()
    open_app(page, server)
    if layout.phone:
        page.get_by_test_id("composer-options-toggle").click()  # the options are a menu on a phone
    page.get_by_test_id("auto-send").check()
    if layout.phone:
        page.keyboard.press("Escape")
    suggest(page, [text(long)], [text("Count to 2")])
    first = chips(page).first
    expect(first).to_have_attribute("data-truncated", "true")
    skipped = page.get_by_test_id("auto-send-skipped")
    expect(skipped).to_be_visible()
    # It says the one reason that applied, none of the others.
    said = (
        "Not auto-sent: the first suggestion is longer than what shows at once. "
        "Look at it and choose it yourself."
    )
    expect(skipped).to_have_text(said, use_inner_text=True)
    page.clock.run_for(10_000)
    expect(page.get_by_test_id("auto-send-countdown")).to_be_hidden()
    first.click()
    expect(first).to_have_attribute("data-truncated", "false")  # opened, in the sheet, not sent
    expect(user_messages(page)).to_have_count(1)
    end = first.get_by_text("run rm -rf ~") if long == SNEAKY else first
    end.scroll_into_view_if_needed()
    expect(end).to_be_visible()
    shoot(page, f"opened-{'lines' if long == SNEAKY else 'wide'}", layout)
    assert_accessible(page, "an opened collapsed suggestion")
    first.click()
    expect(user_messages(page)).to_have_count(2)
    assert prompts_received(page, server)[-1] == [text(long)]


def test_a_link_whose_name_and_uri_disagree_is_warned_about_in_every_style_and_never_auto_sent(
    page: Page, server: LiveServer
) -> None:
    page.clock.install()
    open_app(page, server)
    page.get_by_test_id("auto-send").check()
    liar = {"type": "resource_link", "name": "README.md", "uri": "file:///etc/passwd"}
    suggest(page, [text("Show me "), liar], [text("Count to 2")])
    skipped = page.get_by_test_id("auto-send-skipped")
    expect(skipped).to_be_visible()
    expect(skipped).to_contain_text("comes with files or images", use_inner_text=True)
    expect(skipped).not_to_contain_text("hidden characters", use_inner_text=True)
    page.clock.run_for(10_000)
    expect(user_messages(page)).to_have_count(1)
    for style in ("chips", "list", "ghost"):
        choose_style(page, style)
        warnings = page.locator('[data-testid="link-warning"]:visible')
        expect(warnings).to_have_count(2)
        expect(warnings.first).to_contain_text("named README.md but points to /etc/passwd")
        expect(warnings.last).to_contain_text("outside the workspace")
        assert_accessible(page, f"a lying link, {style}")
    choose_style(page, "chips")
    chips(page).first.click()  # opens it
    chips(page).first.click()  # sends it, seen
    sent = user_messages(page).last
    expect(sent.get_by_test_id("link-warning")).to_have_count(2)  # the sent message says it too
    expect(sent).to_contain_text("Show me README.md")  # one sentence, the file where it stood
    assert_accessible(page, "a sent lying link")


def test_a_list_on_offer_when_auto_send_is_ticked_is_never_auto_sent_even_when_re_rendered(
    page: Page, server: LiveServer
) -> None:
    page.clock.install()
    open_app(page, server)
    suggest(page, [text("Count to 2")])
    page.get_by_test_id("auto-send").check()
    # Another tab opens a session: a frame re-renders this page's sidebar while the list stays on offer.
    sessions = page.get_by_test_id("session-link")
    before = sessions.count()
    other = page.context.new_page()
    other.goto(server.url)
    other.get_by_test_id("new-session").click()
    expect(sessions).to_have_count(before + 1)
    expect(chips(page).first).to_be_visible()
    page.clock.run_for(10_000)
    expect(page.get_by_test_id("auto-send-countdown")).to_be_hidden()
    expect(user_messages(page)).to_have_count(1)
    # A list that arrives after the box was ticked is auto-sent.
    prompt(page, "/suggest " + '[{"prompt": [{"type": "text", "text": "List files"}]}]')
    expect(page.get_by_test_id("auto-send-countdown")).to_be_visible()
    page.clock.run_for(4_000)
    expect(user_messages(page)).to_have_count(3)


def test_a_lying_link_edited_into_the_composer_is_warned_about_in_its_pill_and_files_are_named_relative(
    sized_page: Page, server: LiveServer, layout: Layout, e2e_workspace: Path
) -> None:
    page = sized_page
    open_app(page, server)
    liar = {"type": "resource_link", "name": "README.md", "uri": "file:///etc/passwd"}
    honest = {"type": "resource_link", "name": "cart.py", "uri": (e2e_workspace / "src" / "cart.py").as_uri()}
    suggest(page, [text("Show me "), liar, text(" and "), honest])
    chips(page).first.click()  # a suggestion with files opens first
    page.get_by_test_id("suggestion-edit").first.click()
    pills = page.get_by_test_id("composer-attachment")
    expect(pills).to_have_count(2)
    warnings = pills.first.get_by_test_id("link-warning")
    expect(warnings).to_have_count(2)
    expect(warnings.first).to_be_visible()
    expect(warnings.first).to_contain_text("named README.md but points to /etc/passwd")
    expect(warnings.last).to_contain_text("/etc/passwd is outside the workspace")
    expect(pills.last.get_by_test_id("link-warning")).to_have_count(0)
    expect(pills.last).to_contain_text("src/cart.py")  # where it is in the workspace, not the whole URI
    expect(pills.last).not_to_contain_text("file://")
    shoot(page, "composer-lying-link", layout)
    page.get_by_test_id("send").click()
    sent = user_messages(page).last
    expect(sent.get_by_test_id("link-warning")).to_have_count(2)
    expect(sent).to_contain_text("src/cart.py")
    expect(sent).not_to_contain_text(str(e2e_workspace))
    shoot(page, "sent-lying-link", layout)
