"""The user's own attachments: workspace files with the `@` picker, and images chosen or pasted."""

from __future__ import annotations

import base64
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.support.browser import open_signed_in
from tests.support.console import watch_problems
from tests.support.live import LiveServer, scripted_agent, serve_in_thread
from tests.support.pages import agent_messages, open_app, prompts_received
from tests.support.screenshots import screenshot
from tests.support.workspace import tiny_png


def test_at_picker_finds_a_workspace_file_and_attaches_it_as_a_link(
    page: Page, server: LiveServer, e2e_workspace: Path
) -> None:
    open_app(page, server)
    composer = page.get_by_test_id("composer")
    composer.press_sequentially("show @cart")
    options = page.get_by_test_id("file-option")
    expect(options.first).to_have_attribute("data-path", "src/cart.py")
    screenshot(page, "file-picker")
    composer.press("Enter")  # takes the highlighted file; does not send

    pill = page.get_by_test_id("composer-attachment")
    expect(pill).to_have_count(1)
    expect(pill).to_contain_text("src/cart.py")  # where it is in the workspace; its whole URI on hover
    expect(pill.get_by_title((e2e_workspace / "src" / "cart.py").as_uri()).first).to_be_visible()
    expect(composer).to_have_value("show ⟦cart.py⟧ ")  # the file stands where it was typed
    expect(page.get_by_test_id("file-picker")).to_be_hidden()

    composer.press_sequentially("please")
    composer.press("Enter")
    user = page.locator('[data-testid="message"][data-role="user"]').last
    expect(user).to_contain_text("cart.py")
    link = {"type": "resource_link", "name": "cart.py", "uri": (e2e_workspace / "src" / "cart.py").as_uri()}
    assert prompts_received(page, server)[-1] == [
        {"type": "text", "text": "show "},
        link,
        {"type": "text", "text": " please"},
    ]
    expect(page.locator('[data-testid="message"][data-role="agent"]').last).to_contain_text("class Cart")
    expect(page.get_by_test_id("composer-attachment")).to_have_count(0)


def test_escape_closes_the_picker_and_a_missing_file_says_so(page: Page, server: LiveServer) -> None:
    open_app(page, server)
    composer = page.get_by_test_id("composer")
    composer.press_sequentially("@nosuchfile")
    expect(page.get_by_test_id("file-picker")).to_contain_text("No workspace file matches")
    composer.press("Escape")
    expect(page.get_by_test_id("file-picker")).to_be_hidden()
    expect(page.get_by_test_id("composer-attachment")).to_have_count(0)


def test_a_file_name_that_is_not_utf8_is_offered_and_the_page_goes_on_updating(
    page: Page, tmp_path: Path
) -> None:
    # A name in Latin-1, as an old archive leaves them: Python reads it with a surrogate escape, which no
    # WebSocket text can carry. Its frame once ended the tab's sender, and the page heard nothing again.
    (tmp_path / "old").mkdir()
    with open(bytes(tmp_path / "old") + b"/caf\xe9 menu.txt", "w") as file:
        file.write("coffee\n")
    problems = watch_problems(page)
    with serve_in_thread(scripted_agent("echo_agent"), cwd=tmp_path) as live:
        open_signed_in(page, live)
        expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready", timeout=60_000)
        composer = page.get_by_test_id("composer")
        composer.press_sequentially("@menu")
        expect(page.get_by_test_id("file-option")).to_have_attribute("data-path", "old/caf\ufffd menu.txt")
        composer.press("Escape")
        composer.fill("hello")
        composer.press("Enter")
        expect(agent_messages(page).last).to_contain_text("You said: hello")
        expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    assert problems == []


def test_an_image_chosen_from_disk_is_shown_and_sent(page: Page, server: LiveServer, tmp_path: Path) -> None:
    image = tmp_path / "red.png"
    image.write_bytes(tiny_png())
    open_app(page, server)
    expect(page.get_by_test_id("attach-image")).to_be_visible()  # the demo agent accepts images
    page.locator("#image-input").set_input_files(str(image))
    pill = page.locator('[data-testid="composer-attachment"][data-kind="image"]')
    expect(pill).to_have_count(1)
    expect(pill.locator("img")).to_have_attribute(
        "src", "data:image/png;base64," + base64.b64encode(tiny_png()).decode()
    )

    composer = page.get_by_test_id("composer")
    composer.fill("what is this?")
    composer.press("Enter")
    reply = page.locator('[data-testid="message"][data-role="agent"]').last
    expect(reply).to_contain_text(f"{len(tiny_png())} bytes")
    expect(reply).to_contain_text("image/png")
