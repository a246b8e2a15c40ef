"""`webclient check` as agent developers run it: a real subprocess, against real agent subprocesses.

The demo agent keeps every rule in both versions; each mode of the scripted `rule_breaker` breaks one
rule, and the check flags that rule alone and exits 1.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from tests.support.live import agent_argv
from tests.support.processes import pid_alive
from webclient.check.rules import RULES

# Whole processes driven from outside: `make test` runs it, `make test-fast` leaves it out.
pytestmark = pytest.mark.system

# Generous: the machine is shared, and the check starts ten agent processes per version.
CHECK_TIMEOUT = 600
# The rule each mode of tests/agents/rule_breaker.py breaks, and nothing else.
BREAKS = {
    "unadvertised": "gating.unadvertised",
    "types": "gating.types",
    "malformed": "shape.update",
    "bad_prompt": "shape.prompt",
    "blank": "shape.blank",
    "stale": "lifetime.replace",
    "late": "lifetime.stale",
    "replay": "replay.empty",
    "unknown_session": "session.id",
    "wrong_session": "session.id",
}


def run_check(tmp_path: Path, *args: str) -> tuple[int, str, dict[str, Any]]:
    """Run `webclient check` with a JSON report; its exit code, its terminal output and the report."""
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    (workspace / "README.md").write_text("# A project\n")
    report = tmp_path / "report.json"
    argv = [sys.executable, "-m", "webclient", "check", "--cwd", str(workspace), "--json", str(report), *args]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=CHECK_TIMEOUT, check=False)
    assert report.exists(), done.stderr
    return done.returncode, done.stdout, json.loads(report.read_text())


def statuses(report: dict[str, Any], version: int) -> dict[str, str]:
    [protocol] = [p for p in report["protocols"] if p["version"] == version]
    return {rule["id"]: rule["status"] for rule in protocol["rules"]}


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, dict[str, Any], Path]:
    tmp = tmp_path_factory.mktemp("demo-check")
    junit = tmp / "report.xml"
    code, out, report = run_check(tmp, "--protocol", "both", "--settle", "0.3", "--junit", str(junit))
    return code, out, report, junit


def test_the_demo_agent_passes_every_rule_in_v1_and_v2(
    demo_report: tuple[int, str, dict[str, Any], Path],
) -> None:
    code, out, report, _ = demo_report
    for version in (1, 2):
        found = statuses(report, version)
        assert found == {rule.id: "INFO" if rule.id == "legacy.meta" else "PASS" for rule in RULES}, out
    assert code == 0
    assert report["exit_code"] == 0 and "no rule fails" in out


def test_every_verdict_quotes_its_rfd_sentence_and_the_wire_lines_behind_it(
    demo_report: tuple[int, str, dict[str, Any], Path],
) -> None:
    _, _, report, _ = demo_report
    for protocol in report["protocols"]:
        for rule in protocol["rules"]:
            assert rule["sentence"] and rule["summary"]
            if rule["status"] == "PASS":
                assert rule["lines"], rule["id"]
                assert all(line["text"].startswith("{") for line in rule["lines"])


def test_the_junit_report_has_a_case_per_rule_and_version_and_no_failure(
    demo_report: tuple[int, str, dict[str, Any], Path],
) -> None:
    *_, junit = demo_report
    root = ET.parse(junit).getroot()
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [
        "prompt suggestions RFD, ACP v1",
        "prompt suggestions RFD, ACP v2",
    ]
    for suite in suites:
        cases = suite.findall("testcase")
        assert len(cases) == len(RULES) == int(suite.get("tests", "0"))
        assert suite.get("failures") == "0" and not suite.findall("testcase/failure")


@pytest.mark.parametrize("mode", sorted(BREAKS))
def test_an_agent_that_breaks_one_rule_fails_that_rule_alone(tmp_path: Path, mode: str) -> None:
    agent = " ".join(agent_argv("rule_breaker", mode))
    junit = tmp_path / "report.xml"
    code, out, report = run_check(
        tmp_path, "--agent", agent, "--protocol", "1", "--settle", "0.1", "--junit", str(junit)
    )
    failed = sorted(rule for rule, status in statuses(report, 1).items() if status == "FAIL")
    assert failed == [BREAKS[mode]], out
    assert code == 1
    [rule] = [r for r in report["protocols"][0]["rules"] if r["id"] == BREAKS[mode]]
    assert rule["lines"], "a FAIL names the wire lines that prove it"
    failures = ET.parse(junit).getroot().findall("testsuite/testcase/failure")
    assert len(failures) == 1


def test_a_failing_rule_says_how_to_fix_it_with_the_whole_message_and_a_playground_link(
    tmp_path: Path,
) -> None:
    agent = " ".join(agent_argv("rule_breaker", "bad_prompt"))
    junit = tmp_path / "report.xml"
    playground = "http://127.0.0.1:9/playground"
    code, out, report = run_check(tmp_path, "--agent", agent, "--protocol", "1", "--settle", "0.1",
                                  "--junit", str(junit), "--playground-url", playground)  # fmt: skip
    assert code == 1
    [rule] = [r for r in report["protocols"][0]["rules"] if r["id"] == "shape.prompt"]
    hint = rule["hint"]
    assert "absolute URI" in hint["fix"]
    # The whole message, with the offending block (the first suggestion) and the good one after it.
    offending = json.loads(hint["offending"]["text"])
    suggestions = offending["params"]["update"]["suggestions"]
    assert (
        suggestions[0]["prompt"][0]["uri"] == "notes.txt"
        and suggestions[1]["prompt"][0]["text"] == "good one"
    )
    # An example that keeps the rule: every resource_link in it has an absolute URI.
    blocks = [b for s in hint["example"]["params"]["update"]["suggestions"] for b in s["prompt"]]
    assert all(":" in b["uri"] for b in blocks if b["type"] == "resource_link")
    # The playground link carries that very update in its fragment, as the playground's share link does.
    base, _, fragment = hint["playground"].partition("#")
    assert base == playground
    shared = parse_qs(fragment)
    text = base64.urlsafe_b64decode(shared["t"][0] + "=" * (-len(shared["t"][0]) % 4)).decode()
    assert json.loads(text)["suggestions"] == suggestions
    # The same in the terminal and in the JUnit failure.
    assert '"uri": "notes.txt"' in out and "fix: Give each suggestion" in out and hint["playground"] in out
    [failure] = ET.parse(junit).getroot().findall("testsuite/testcase/failure")
    assert '"good one"' in (failure.text or "") and hint["playground"] in (failure.text or "")
    # A rule that passes still shows what keeping it looks like, but no offending message.
    [passing] = [r for r in report["protocols"][0]["rules"] if r["id"] == "shape.blank"]
    assert passing["hint"]["example"] and passing["hint"]["offending"] is None


def test_notices_are_kept_apart_from_warnings_which_are_protocol_mistakes(tmp_path: Path) -> None:
    agent = " ".join(agent_argv("notices_and_mistakes"))
    code, out, report = run_check(tmp_path, "--agent", agent, "--protocol", "1", "--settle", "0")
    assert code == 0, out
    assert report["warnings"] and report["notices"]
    assert all("not JSON-RPC" in w["text"] for w in report["warnings"])
    assert all("unknown type '_example_progress'" in n["text"] for n in report["notices"])
    assert f"notices ({len(report['notices'])}, not mistakes" in out
    assert f"warnings ({len(report['warnings'])}):" in out


def test_an_agent_that_refuses_every_session_until_signed_in_is_no_mistake(tmp_path: Path) -> None:
    agent = " ".join(agent_argv("auth_required", "1"))
    code, out, report = run_check(tmp_path, "--agent", agent, "--protocol", "1", "--settle", "0")
    assert code == 0, out
    assert report["warnings"] == [], out
    ended = [
        n["text"] for n in report["notices"] if n["text"].startswith("the run ended: session/new failed")
    ]
    assert len(ended) == len(report["protocols"][0]["runs"]) - 1  # all but the replay, which never opens one
    assert all(r["status"] in ("NOT OBSERVED", "INFO") for r in report["protocols"][0]["rules"])


def test_an_agent_that_cannot_start_is_reported_with_exit_code_2(tmp_path: Path) -> None:
    code, out, report = run_check(tmp_path, "--agent", "/nonexistent/agent", "--protocol", "1")
    assert code == 2
    assert report["protocols"][0]["unavailable"]
    assert "could not start" in out


def test_an_agent_that_exits_at_start_makes_a_check_that_did_not_run_in_every_report(tmp_path: Path) -> None:
    agent = " ".join(agent_argv("exits_at_start"))
    junit, html = tmp_path / "report.xml", tmp_path / "report.html"
    code, out, report = run_check(tmp_path, "--agent", agent, "--junit", str(junit), "--html", str(html))
    stderr = ["error: no configuration found at ~/.scripted/config.toml", "run `scripted login` first"]
    assert code == 2 and report["exit_code"] == 2 and report["ran"] is False
    assert report["outcome"].startswith("THE CHECK DID NOT RUN")
    [protocol] = report["protocols"]
    assert protocol["agent_exit_code"] == 7 and protocol["stderr"] == stderr
    assert out.splitlines()[2].startswith("THE CHECK DID NOT RUN"), out
    assert "exited with code 7" in out and all(f"| {line}" in out for line in stderr)
    assert "no rule fails" not in out
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("errors") == str(len(RULES))
    errors = suite.findall("testcase/error")
    assert len(errors) == len(RULES) and all(stderr[0] in (e.text or "") for e in errors)
    page = html.read_text()
    assert 'data-ran="false"' in page and 'data-testid="check-not-run"' in page
    assert "No rule fails" not in page and "run `scripted login` first" in page


def test_every_agent_process_and_its_children_are_gone_when_the_check_ends(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    agent = " ".join(agent_argv("spawns_child", str(pids)))
    code, out, _ = run_check(tmp_path, "--agent", agent, "--protocol", "1", "--settle", "0")
    assert code == 0, out
    agent_pid, child_pid = (int(p) for p in pids.read_text().split())
    assert not pid_alive(agent_pid) and not pid_alive(child_pid)


def test_a_step_past_its_deadline_ends_the_run_and_is_reported(tmp_path: Path) -> None:
    agent = " ".join(agent_argv("never_initializes"))
    code, out, report = run_check(tmp_path, "--agent", agent, "--protocol", "1", "--step-timeout", "1")
    assert code == 2
    assert "initialize" in report["protocols"][0]["unavailable"]
    assert "not checked" in out


def test_the_agent_works_on_a_copy_and_never_touches_the_users_files(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    readme = workspace / "README.md"
    prompts = [f"write {readme} overwritten", "write README.md changed in the copy", "write new.txt hello"]
    args = [a for p in prompts for a in ("--prompt", p)]
    code, out, _ = run_check(tmp_path, "--agent", " ".join(agent_argv("asks_client")), "--protocol", "1",
                             "--settle", "0", *args)  # fmt: skip
    assert code == 0, out
    assert readme.read_text() == "# A project\n"
    assert sorted(p.name for p in workspace.iterdir()) == ["README.md"]


def test_a_fifo_or_a_huge_sparse_file_the_agent_makes_is_refused_with_the_servers_limits(
    tmp_path: Path,
) -> None:
    agent = " ".join(agent_argv("special_files"))
    args = ["--prompt", "fifo", "--prompt", "sparse", "--step-timeout", "10", "--settle", "0"]
    code, out, report = run_check(tmp_path, "--agent", agent, "--protocol", "1", *args)
    assert code == 0, out
    [protocol] = report["protocols"]
    # Every read was answered at once (refused), so every turn of every run ended within its deadline.
    assert all(run["error"] is None for run in protocol["runs"]), protocol["runs"]
    assert all(run["turns"] >= 1 for run in protocol["runs"] if run["form"] != "replay")
    assert protocol["runs"][0]["form"] == "offer-baseline" and protocol["runs"][0]["turns"] >= 2


def test_rules_runs_a_subset_and_only_the_runs_it_needs(tmp_path: Path) -> None:
    code, out, report = run_check(tmp_path, "--rules", "replay.empty,lifetime.replace", "--settle", "0.3")
    assert code == 0, out
    [protocol] = report["protocols"]
    assert [r["id"] for r in protocol["rules"]] == ["lifetime.replace", "replay.empty"]
    assert [run["form"] for run in protocol["runs"]] == ["offer-baseline", "replay"]
    assert all(r["status"] == "PASS" for r in protocol["rules"]), out
    assert "gating.unadvertised" not in out


def test_each_step_says_what_it_waits_for(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "webclient", "check", "--cwd", str(tmp_path), "--rules", "lifetime.replace"]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=CHECK_TIMEOUT)
    assert done.returncode == 0, done.stderr
    steps = done.stderr.splitlines()
    assert steps[0].endswith("v2 offer-baseline: initialize: waiting for the agent's answer")
    assert any(s.endswith("prompt 1/2: waiting for the turn to end") for s in steps)
    assert any(s.endswith("prompt 1/2: waiting up to 1 s for a prediction") for s in steps)


def test_list_rules_names_every_rule_and_an_unknown_rule_is_refused(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "webclient", "check"]
    listed = subprocess.run([*argv, "--list-rules"], capture_output=True, text=True, check=False, timeout=60)
    assert listed.returncode == 0
    assert [line.split()[0] for line in listed.stdout.splitlines() if not line.startswith(" ")] == [
        rule.id for rule in RULES
    ]
    refused = subprocess.run([*argv, "--rules", "gating.nope"], capture_output=True, text=True, check=False,
                             timeout=60)  # fmt: skip
    assert refused.returncode == 2 and "no rule gating.nope" in refused.stderr


def test_the_legacy_channel_is_reported_under_both_declarations_that_look_for_it(tmp_path: Path) -> None:
    agent = " ".join(agent_argv("legacy_suggestions"))
    code, out, report = run_check(tmp_path, "--agent", agent, "--protocol", "1", "--settle", "0.5",
                                  "--rules", "legacy.meta")  # fmt: skip
    assert code == 0, out
    [protocol] = report["protocols"]
    assert "offer-air-meta" in [run["form"] for run in protocol["runs"]]
    [rule] = protocol["rules"]
    without, with_offer = rule["summary"].split("; ")[:2]
    assert without == "_meta.jetbrains.air without promptSuggestions: 1 legacy _meta lists in 1 turn"
    assert with_offer.startswith(
        "_meta.jetbrains.air with promptSuggestions (webclient --jetbrains-air-meta)"
    )
    assert with_offer.endswith(": 2 legacy _meta lists in 2 turns")
    assert "also sent to" not in rule["summary"]  # the agent keys on the AIR marker alone
    assert any("session_info_update" in line["text"] for line in rule["lines"])


def test_an_agent_named_in_the_settings_file_is_checked(tmp_path: Path) -> None:
    argv = agent_argv("rule_breaker", "blank")
    settings = tmp_path / "settings.json"
    entry = {"command": argv[0], "args": argv[1:], "env": {}}
    settings.write_text(json.dumps({"agent_servers": {"Breaker": entry}}))
    code, out, report = run_check(
        tmp_path, "--config", str(settings), "--agent", "Breaker", "--protocol", "1", "--settle", "0"
    )
    assert code == 1, out
    assert statuses(report, 1)["shape.blank"] == "FAIL"
    assert "rule_breaker.py blank" in report["agent"]
