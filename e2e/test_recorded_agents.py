"""What real agents sent, replayed line for line from the recordings in tests/agents/recorded/ (each
says which agent and version it comes from), through a real server into the page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

from tests.support.browser import open_signed_in
from tests.support.layouts import DESKTOP, assert_accessible, shoot
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
        # The header names the agent once, as its agentInfo does.
        expect(page.get_by_test_id("agent-name")).to_have_text("Gemini CLI 0.61.0")


def test_the_exit_notices_stderr_tail_has_no_escape_codes(page: Page, tmp_path: Path) -> None:
    # codex-acp 0.16: its coloured tracing log, then an exit in the middle of a turn.
    with replaying(page, "codex_exits_with_coloured_log", tmp_path):
        composer = page.get_by_test_id("composer")
        composer.fill("hello")
        composer.press("Enter")
        failure = page.locator('[data-testid="notice"][data-failure="true"]')
        expect(failure).to_contain_text("The agent stopped running.", ignore_case=True)
        tail = failure.get_by_test_id("failure-stderr")
        warning = "2026-12-03T10:12:01.512876Z  WARN codex_core::client: stream disconnected"
        expect(tail).to_contain_text(warning)
        expect(tail).to_contain_text("ERROR codex_acp: fatal: exceeded retry limit")
        assert "\x1b" not in tail.inner_text() and "[0m" not in tail.inner_text()


def send(page: Page, text: str) -> None:
    composer = page.get_by_test_id("composer")
    composer.fill(text)
    composer.press("Enter")


def card(page: Page, tool_call_id: str) -> Locator:
    return page.locator(f'[data-testid="tool-call"][data-tool-call-id="{tool_call_id}"]')


LS = (
    "total 16\n"
    "drwxr-xr-x  4 dev dev 4096 Dec  3 10:12 .\n"
    "drwxr-xr-x 12 dev dev 4096 Dec  3 10:11 ..\n"
    "-rw-r--r--  1 dev dev  220 Dec  3 10:12 README.md\n"
    "-rw-r--r--  1 dev dev   61 Dec  3 10:12 __init__.py\n"
    "drwxr-xr-x  2 dev dev 4096 Dec  3 10:12 src\n"
)


def test_codex_v2_command_output_keeps_its_lines_and_columns(page: Page, tmp_path: Path) -> None:
    with replaying(page, "codex_v2_ls", tmp_path, "--protocol", "2"):
        send(page, "list the files")
        output = card(page, "call_ls").get_by_test_id("tool-output")
        expect(output).to_have_text(LS, use_inner_text=True)  # __init__ stays, no emphasis
        expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
        shoot(page, "tool-output-codex-v2", DESKTOP)


def test_shell_results_keep_their_lines_and_fenced_results_stay_markdown(page: Page, tmp_path: Path) -> None:
    with replaying(page, "shell_output_v1", tmp_path):
        send(page, "go")
        expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
        qwen = card(page, "run_shell_command-1733222400000").get_by_test_id("tool-output")
        expect(qwen).to_have_text(
            "Command: ls -1\nDirectory: (root)\nOutput: README.md\nsrc\nError: (none)\nExit Code: 0\n"
            "Signal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 48211",
            use_inner_text=True,
        )
        gemini = card(page, "run_shell_command-1733222400999").get_by_test_id("tool-output")
        expect(gemini).to_have_text(" M src/cart.py\n?? notes.txt\n", use_inner_text=True)
        # claude-agent-acp's fenced results are Markdown: one code block each, lines kept inside it.
        read = card(page, "toolu_01Read")
        expect(read.get_by_test_id("tool-output")).to_have_count(0)
        expect(read.locator(".tool-part pre code")).to_have_text(
            "# Shop\n\nA tiny shop.\n*   item one\n", use_inner_text=True
        )
        bash = card(page, "toolu_01Bash")
        expect(bash.locator(".tool-part pre code")).to_have_text("Python 3.11.2\n", use_inner_text=True)
        assert_accessible(page, "plain and fenced tool output")
        shoot(page, "tool-output-v1", DESKTOP)


def test_a_message_after_the_answer_or_a_plan_starts_a_new_bubble(page: Page, tmp_path: Path) -> None:
    with replaying(page, "claude_notice_after_answer", tmp_path):
        agent = page.locator('[data-testid="message"][data-role="agent"]')
        send(page, "hello")
        bubbles = ["Agent You said: hello", "Agent Warning: We're changing auto mode..."]
        expect(agent).to_have_text(bubbles, use_inner_text=True)
        expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
        send(page, "todo")
        bubbles += ["Agent I'll make a plan.", "Agent Starting with the tests."]
        expect(agent).to_have_text(bubbles, use_inner_text=True)


def open_inspector_notes(page: Page) -> Locator:
    page.get_by_test_id("inspector-toggle").click()
    return page.locator('[data-testid="inspector-entry"][data-direction="note"]')


def test_a_card_left_pending_after_a_cancelled_permission_shows_not_finished(
    page: Page, tmp_path: Path
) -> None:
    # claude-agent-acp 0.49: the Bash card stays "pending" after the user cancels its permission request.
    with replaying(page, "claude_bash_permission_cancelled", tmp_path):
        send(page, "clean up")
        expect(page.locator('[data-testid="permission"][data-state="pending"]')).to_be_visible()
        # One word for the wait, in the header and the sidebar, as in v2 (e2e/test_acp_v2.py).
        expect(page.get_by_test_id("agent-status")).to_have_text("waiting for you…")
        expect(page.get_by_test_id("session-state")).to_have_text("waiting for you")
        page.get_by_test_id("cancel").click()
        expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
        bash = card(page, "toolu_01Bash")
        expect(bash).to_have_attribute("data-status", "not_finished")
        expect(bash.locator(".tool-status")).to_have_text("not finished")
        notice = page.get_by_test_id("notice").filter(has_text="without finishing")
        expect(notice).to_have_attribute("data-level", "warning")
        expect(open_inspector_notes(page).filter(has_text="still pending or in progress")).to_have_count(1)
        assert_accessible(page, "a card not finished, its notice and the inspector's note")
        shoot(page, "tool-not-finished", DESKTOP)


def test_a_command_refused_by_a_v2_agents_sandbox_leaves_a_trace(page: Page, tmp_path: Path) -> None:
    # codex-acp 2.6 in v2: the call stays "in progress", the reason only in its stderr log.
    with replaying(page, "codex_v2_sandbox_refused", tmp_path, "--protocol", "2"):
        send(page, "run the tests")
        expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
        expect(card(page, "call_cargo")).to_have_attribute("data-status", "not_finished")
        notice = page.get_by_test_id("notice").filter(has_text="without finishing 'cargo test'")
        notice.locator("summary").click()
        expect(notice.locator(".notice-detail")).to_contain_text(
            "ERROR codex_core::exec: sandbox error: Landlock is not supported by this kernel"
        )
        expect(open_inspector_notes(page).filter(has_text="'cargo test'")).to_have_count(1)


def test_an_agent_that_never_initialized_is_named_once_by_its_command(page: Page, tmp_path: Path) -> None:
    wrapper = tmp_path / "run-claude.sh"
    wrapper.write_text(f"#!/bin/sh\nexec {scripted_agent('replay', 'claude_wrapper_exits_at_start')}\n")
    wrapper.chmod(0o755)
    with serve_in_thread(str(wrapper), cwd=tmp_path) as live:
        open_signed_in(page, live)
        expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "exited", timeout=60_000)
        expect(page.get_by_test_id("agent-name")).to_have_text("run-claude.sh")
