"""The HTML report of `webclient check`, opened from disk in Chromium: offline, under its own strict
CSP, no console error, no axe violation in either scheme, at desktop and phone size."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support import screenshots
from tests.support.console import watch_problems
from tests.support.layouts import Layout, assert_accessible, shoot
from tests.support.live import LiveServer, agent_argv
from webclient.check.hints import DEFAULT_PLAYGROUND

EXIT_CODES = {"breaker": 1, "demo": 0, "not-run": 2}


@pytest.fixture(scope="module", params=sorted(EXIT_CODES))
def report(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo agent's report (every rule passes, in v1 and v2), and one with every status in it: an
    agent that breaks one rule and has nothing to replay; and the report of an agent that exits at once."""
    tmp = tmp_path_factory.mktemp("check-report")
    html = tmp / "report.html"
    argv = [
        sys.executable,
        "-m",
        "webclient",
        "check",
        "--settle",
        "0.2",
        "--cwd",
        str(tmp),
        "--html",
        str(html),
    ]
    if request.param == "breaker":
        argv += ["--agent", " ".join(agent_argv("rule_breaker", "late")), "--protocol", "1"]
    elif request.param == "not-run":
        argv += ["--agent", " ".join(agent_argv("exits_at_start"))]
    else:
        argv += ["--protocol", "both"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == EXIT_CODES[request.param], done.stdout + done.stderr
    return html


@pytest.mark.parametrize("report", ["not-run"], indirect=True)
def test_a_check_that_did_not_run_says_so_in_red_with_the_agents_last_words(
    sized_page: Page, layout: Layout, report: Path
) -> None:
    sized_page.goto(report.as_uri())
    expect(sized_page.get_by_test_id("check-outcome")).to_have_attribute("data-ran", "false")
    outcome = sized_page.get_by_test_id("check-outcome")
    expect(outcome).to_contain_text("THE CHECK DID NOT RUN")
    expect(outcome).to_have_attribute("data-failed", "true")
    expect(sized_page.get_by_test_id("check-agent-exit-code")).to_have_text("7")
    expect(sized_page.get_by_test_id("check-agent-stderr")).to_contain_text("run `scripted login` first")
    # In the error colours: the outcome's text is the danger red, not the ink of a passing report.
    box = sized_page.get_by_test_id("check-not-run")
    assert box.evaluate("e => getComputedStyle(e).borderLeftWidth") == "4px"
    shoot(sized_page, "check/report-not-run", layout)
    assert_accessible(sized_page, "a check that did not run")


def test_the_report_opens_offline_without_a_console_error_and_passes_axe(
    sized_page: Page, layout: Layout, report: Path
) -> None:
    messages = watch_problems(sized_page)
    sized_page.route(
        "**/*",
        lambda route: route.abort() if not route.request.url.startswith("file:") else route.continue_(),
    )
    sized_page.goto(report.as_uri())

    rows = sized_page.get_by_test_id("check-rule")
    expect(rows).to_have_count(10)
    demo = "demo agent" in sized_page.locator("h1 + p").inner_text()
    ran = sized_page.get_by_test_id("check-outcome").get_attribute("data-ran") == "true"
    verdict = "PASS" if demo else "FAIL" if ran else "NOT RUN"
    badge = sized_page.locator(f'[data-rule="lifetime.stale"] [data-status="{verdict}"]').first
    expect(badge).to_be_visible()
    failed = "false" if demo else "true"
    expect(sized_page.get_by_test_id("check-outcome")).to_have_attribute("data-failed", failed)
    # The stylesheet applied (allowed by its hash): the verdict badge has its border.
    assert badge.evaluate("e => getComputedStyle(e).borderTopStyle") == "solid"
    shoot(sized_page, f"check/report-{'demo' if demo else 'breaker' if ran else 'not-run'}", layout)
    assert_accessible(sized_page, "the check report")
    assert messages == []


@pytest.mark.parametrize("report", ["breaker"], indirect=True)
def test_a_failing_rules_link_opens_its_update_in_the_playground(
    page: Page, report: Path, server: LiveServer
) -> None:
    page.goto(report.as_uri())
    links = page.get_by_test_id("check-playground")
    expect(page.get_by_test_id("check-outcome")).to_have_attribute("data-ran", "true")
    expect(links.first).to_be_visible()
    fix = page.locator('[data-testid="check-fix"][data-rule="lifetime.stale"]').first
    expect(fix).to_contain_text("Fix:")
    # The late list itself (not the withdrawal before it), whole.
    expect(fix.get_by_test_id("check-offending")).to_contain_text("good one")
    screenshots.screenshot(
        page, "check/report-fix-desktop-light", element=page.locator('[id="lifetime.stale"]')
    )
    href = fix.get_by_test_id("check-playground").get_attribute("href") or ""
    assert href.startswith(DEFAULT_PLAYGROUND + "#v=1&t=")
    page.goto(server.base + "/playground" + href.partition("/playground")[2])
    expect(page.get_by_test_id("playground-frame")).to_have_count(12)
    expect(page.get_by_test_id("playground-input")).to_contain_text("prompt_suggestions_update")
    expect(page.get_by_test_id("playground-count")).to_contain_text("offered")
