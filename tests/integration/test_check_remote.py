"""`webclient check` of remote agents: the same rules over ACP's remote transports, against real servers on
loopback: the official TypeScript SDK's `AcpServer` (WebSocket and Streamable HTTP on one endpoint,
behind a bearer token given in a settings entry) and `acpremote` serving the demo agent over WebSocket.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.remote_agents import (
    TOKEN,
    acpremote_demo,
    free_port,
    remote_settings_file,
    running,
    sdk_server,
)

# Whole processes driven from outside: `make test` runs it, `make test-fast` leaves it out.
pytestmark = pytest.mark.system

CHECK_TIMEOUT = 600
FAST = {"WEBCLIENT_DEMO_CHUNK_DELAY_MS": "0"}


def check(tmp_path: Path, *args: str) -> tuple[int, str, dict[str, Any]]:
    report = tmp_path / "report.json"
    argv = [sys.executable, "-m", "webclient", "check", "--cwd", str(tmp_path), "--json", str(report), *args]
    env = {**os.environ, "ACP_TEST_TOKEN": TOKEN}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=CHECK_TIMEOUT, check=False, env=env)
    assert report.exists(), done.stderr
    return done.returncode, done.stdout + done.stderr, json.loads(report.read_text())


def statuses(report: dict[str, Any]) -> dict[str, str]:
    [protocol] = report["protocols"]
    return {rule["id"]: rule["status"] for rule in protocol["rules"]}


@pytest.mark.parametrize("scheme", ["ws", "http"])
def test_the_sdk_servers_agent_is_checked_over_both_remote_transports(tmp_path: Path, scheme: str) -> None:
    with running(sdk_server(tmp_path / "store.json", token=TOKEN)) as server:
        settings = remote_settings_file(tmp_path / "settings.json", server.url(scheme), token=TOKEN)
        code, out, report = check(tmp_path, "--config", str(settings), "--agent", "remote", "--settle", "0.5")
    assert code == 0, out
    assert report["agent"] == server.url(scheme) and report["ran"] is True
    [protocol] = report["protocols"]
    assert protocol["version"] == 2
    assert all(run["error"] is None for run in protocol["runs"]), protocol["runs"]
    found = statuses(report)
    assert "FAIL" not in found.values() and found["lifetime.replace"] == "PASS", out
    assert found["replay.empty"] == "PASS", out  # a session of one connection resumed over another


def test_the_demo_agent_behind_acpremote_keeps_every_rule(tmp_path: Path) -> None:
    with running(acpremote_demo(tmp_path / "state", tmp_path, env=FAST)) as server:
        code, out, report = check(tmp_path, "--agent", server.url("ws"), "--settle", "0.5")
    assert code == 0, out
    assert statuses(report) == {
        rule: "INFO" if rule == "legacy.meta" else "PASS" for rule in statuses(report)
    }, out


def test_a_remote_agent_nobody_serves_is_a_check_that_did_not_run(tmp_path: Path) -> None:
    url = f"ws://127.0.0.1:{free_port()}/acp"
    code, out, report = check(tmp_path, "--agent", url, "--step-timeout", "20")
    assert code == 2 and report["ran"] is False, out
    assert "THE CHECK DID NOT RUN" in out
