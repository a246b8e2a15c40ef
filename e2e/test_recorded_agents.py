"""What real agents sent, replayed line for line from the recordings in tests/agents/recorded/ (each
says which agent and version it comes from), through a real server into the page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.support.browser import open_signed_in
from tests.support.live import LiveServer, scripted_agent, serve_in_thread


@contextmanager
def replaying(page: Page, recording: str, cwd: Path, *flags: str) -> Iterator[LiveServer]:
    """A server whose agent replays `recording`, and `page` open on its first session, ready."""
    with serve_in_thread(scripted_agent("replay", recording), cwd=cwd, extra_args=flags) as live:
        open_signed_in(page, live)
        expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready", timeout=60_000)
        yield live


def test_a_refused_mode_shows_the_agents_reason_and_its_data(page: Page, tmp_path: Path) -> None:
    # gemini-cli 0.61: session/set_mode -> -32603 "Internal error", the reason only in data.details.
    with replaying(page, "gemini_set_mode_untrusted", tmp_path):
        page.get_by_test_id("mode-select").select_option("autoEdit")
        notice = page.get_by_test_id("notice").last
        reason = "Cannot enable privileged approval modes in an untrusted folder."
        headline = f"the agent did not switch the mode: {reason}"  # the page capitalises it
        expect(notice.locator(".notice-text")).to_have_text(re.compile(re.escape(headline), re.I))
        notice.locator("summary").click()
        detail = notice.locator(".notice-detail")
        expect(detail).to_contain_text(reason)
        expect(detail).to_contain_text("session/set_mode failed: Internal error (code -32603)")
        expect(detail).to_contain_text('data: {"details": "Cannot enable privileged approval modes')
        # The selector goes back to the mode in force.
        expect(page.get_by_test_id("mode-select")).to_have_value("default")
