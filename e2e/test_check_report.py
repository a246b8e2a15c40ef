"""The HTML report of `webclient check`, opened from disk in Chromium: offline, under its own strict
CSP, no console error, no axe violation in either scheme, at desktop and phone size."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect

from tests.support.layouts import Layout, assert_accessible, shoot
from tests.support.live import agent_argv


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report with every status in it: an agent that breaks one rule, and has nothing to replay."""
    tmp = tmp_path_factory.mktemp("check-report")
    html = tmp / "report.html"
    agent = " ".join(agent_argv("rule_breaker", "late"))
    argv = [sys.executable, "-m", "webclient", "check", "--agent", agent, "--protocol", "1"]
    argv += ["--settle", "0.1", "--cwd", str(tmp), "--html", str(html)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    return html


def test_the_report_opens_offline_without_a_console_error_and_passes_axe(
    sized_page: Page, layout: Layout, report: Path
) -> None:
    messages: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if message.type in ("error", "warning"):
            messages.append(message.text)

    sized_page.on("console", on_console)
    sized_page.on("pageerror", lambda error: messages.append(str(error)))
    sized_page.route(
        "**/*",
        lambda route: route.abort() if not route.request.url.startswith("file:") else route.continue_(),
    )
    sized_page.goto(report.as_uri())

    rows = sized_page.get_by_test_id("check-rule")
    expect(rows).to_have_count(10)
    failing = sized_page.locator('[data-rule="lifetime.stale"] [data-status="FAIL"]')
    expect(failing).to_be_visible()
    expect(sized_page.get_by_test_id("check-outcome")).to_have_attribute("data-failed", "true")
    # The stylesheet applied (allowed by its hash): the status badge has the page's danger colour border.
    border = failing.evaluate("e => getComputedStyle(e).borderTopStyle")
    assert border == "solid"
    shoot(sized_page, "check/report", layout)
    assert_accessible(sized_page, "the check report")
    assert messages == []
