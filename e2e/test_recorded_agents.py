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


def test_the_exit_notices_stderr_tail_has_no_escape_codes(page: Page, tmp_path: Path) -> None:
    # codex-acp 0.16: its coloured tracing log, then an exit in the middle of a turn.
    with replaying(page, "codex_exits_with_coloured_log", tmp_path):
        composer = page.get_by_test_id("composer")
        composer.fill("hello")
        composer.press("Enter")
        notice = page.locator('[data-testid="notice"][data-level="error"]').last
        expect(notice).to_contain_text("The agent stopped running.", ignore_case=True)
        notice.locator("summary").click()
        tail = notice.locator(".notice-detail")
        warning = "2026-12-03T10:12:01.512876Z  WARN codex_core::client: stream disconnected"
        expect(tail).to_contain_text(warning)
        expect(tail).to_contain_text("ERROR codex_acp: fatal: exceeded retry limit")
        assert "\x1b" not in tail.inner_text() and "[0m" not in tail.inner_text()
