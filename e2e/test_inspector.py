"""The protocol inspector in a real browser: hidden until opened, live, filterable, downloadable."""

from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.support.browser import own_demo_server
from tests.support.live import LiveServer
from tests.support.pages import open_app
from tests.support.screenshots import screenshot

# A server of this module's own: the inspector shows the newest 500 entries, and on the shared server the
# earlier tests' connection-wide messages (`session/list` after every turn) push `initialize` out of them.
shop, demo_state, shared_server = own_demo_server("inspector")


def test_inspector_shows_the_sessions_messages_live_filters_them_and_downloads_them(
    page: Page, server: LiveServer
) -> None:
    open_app(page, server)
    panel = page.get_by_test_id("inspector")
    toggle = page.get_by_test_id("inspector-toggle")
    expect(panel).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")

    toggle.click()
    expect(panel).to_be_visible()
    expect(page.get_by_test_id("inspector-toggle")).to_have_attribute("aria-expanded", "true")
    entries = page.get_by_test_id("inspector-entry")
    expect(entries.and_(page.locator('[data-method="initialize"]'))).to_have_count(1)
    expect(entries.and_(page.locator('[data-method="session/new (response)"]'))).to_have_count(1)

    composer = page.get_by_test_id("composer")
    composer.fill("help")
    composer.press("Enter")
    request = entries.and_(page.locator('[data-method="session/prompt"]'))
    expect(request).to_have_count(1)
    expect(request).to_have_attribute("data-direction", "out")
    answer = entries.and_(page.locator('[data-method="session/prompt (response)"]'))
    expect(answer).to_have_count(1)
    expect(answer).to_have_attribute("data-direction", "in")
    expect(answer.get_by_test_id("inspector-rtt")).to_have_text(re.compile(r"^\d+\.\d ms$"))
    suggestions = entries.and_(page.locator('[data-kind="prompt_suggestions_update"]'))
    expect(suggestions.first).to_be_visible()
    expect(suggestions.first).to_have_attribute("data-method", "session/update")

    # The pretty JSON sits collapsed in each entry.
    body = suggestions.first.locator("pre")
    expect(body).to_be_hidden()
    suggestions.first.locator("summary").click()
    expect(body).to_be_visible()
    expect(body).to_contain_text('"sessionUpdate": "prompt_suggestions_update"')
    body.scroll_into_view_if_needed()
    screenshot(page, "inspector")

    total = entries.count()
    page.get_by_test_id("inspector-filter").fill("prompt")
    visible = page.locator('[data-testid="inspector-entry"]:visible')
    expect(visible.first).to_be_visible()
    expect(page.locator('[data-testid="inspector-entry"][data-method="initialize"]')).to_be_hidden()
    assert 0 < visible.count() < total
    for method, kind in zip(
        visible.evaluate_all("els => els.map(e => e.dataset.method)"),
        visible.evaluate_all("els => els.map(e => e.dataset.kind)"),
        strict=True,
    ):
        assert "prompt" in method or "prompt" in kind

    with page.expect_download() as info:
        page.get_by_test_id("inspector-download").click()
    download = info.value
    assert download.suggested_filename.endswith(".jsonl")
    records = [json.loads(line) for line in Path(download.path()).read_text().splitlines()]
    assert any(r["method"] == "session/prompt" and r["response"] and r["rtt_ms"] > 0 for r in records)

    page.get_by_test_id("inspector-close").click()
    expect(panel).to_be_hidden()
    expect(page.get_by_test_id("inspector-toggle")).to_have_attribute("aria-expanded", "false")
