"""The sign-in token is in no process's command line: the browser opens a file only the user can read.

A real `webclient` start, with the browser it opens replaced (through `BROWSER`, which Python's
`webbrowser` honours) by a script that records what it was given, as a racing local process would see it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from tests.support.live import ROOT, URL_PATTERN, http_get, scripted_agent
from tests.support.polling import wait_until

# Whole processes driven from outside: `make test` runs it, `make test-fast` leaves it out.
pytestmark = pytest.mark.system

BROWSER = """#!{python}
import json, os, sys
path = sys.argv[1]
file = os.path.realpath(path[len("file://"):]) if path.startswith("file://") else None
info = {{"argv": sys.argv, "file": file}}
if file:
    info["mode"] = os.stat(file).st_mode & 0o777
    info["text"] = open(file).read()
# Written whole, then renamed: the test polls for the file and must never read it half written.
open({record!r} + ".part", "w").write(json.dumps(info))
os.replace({record!r} + ".part", {record!r})
"""


@pytest.fixture
def started(tmp_path: Path, workspace: Path) -> Iterator[tuple[subprocess.Popen[str], Path, list[str]]]:
    record = tmp_path / "browser.json"
    browser = tmp_path / "browser.py"
    browser.write_text(BROWSER.format(python=sys.executable, record=str(record)))
    browser.chmod(0o755)
    argv = [sys.executable, "-m", "webclient", "--port", "0", "--agent", scripted_agent("echo_agent")]
    env = {**os.environ, "BROWSER": str(browser), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [*argv, "--cwd", str(workspace)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    lines: list[str] = []
    try:
        for line in process.stdout:
            lines.append(line)
            if URL_PATTERN.search(line):
                break
        yield process, record, lines
    finally:
        process.terminate()
        process.wait(timeout=20)
        process.stdout.close()


def command_lines() -> dict[int, str]:
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
    return found


def test_the_browser_gets_a_user_only_file_that_redirects_and_no_command_line_holds_the_token(
    started: tuple[subprocess.Popen[str], Path, list[str]],
) -> None:
    process, record, lines = started
    match = URL_PATTERN.search(lines[-1])
    assert match is not None
    url = match.group(1)
    token = url.split("token=", 1)[1]

    wait_until(record.exists, 60, "the browser to be opened")
    opened = json.loads(record.read_text())
    assert all(token not in arg for arg in opened["argv"])
    assert opened["mode"] == 0o600 and url in opened["text"]
    assert Path(unquote(urlparse(opened["argv"][1]).path)).resolve() == Path(opened["file"])
    holding = [pid for pid, line in command_lines().items() if token in line]
    assert holding == [], holding  # the server, its agent, the browser: none shows it

    # The printed URL still signs a person in who copies it.
    base = url.split("/?", 1)[0]
    response = http_get(url, follow_redirects=False, timeout=30)
    assert response.status_code == 303 and "set-cookie" in response.headers
    assert (
        http_get(base + "/", headers={"cookie": response.headers["set-cookie"].split(";")[0]}).status_code
        < 400
    )

    process.send_signal(signal.SIGINT)  # Ctrl+C
    process.wait(timeout=30)
    assert not Path(opened["file"]).exists()  # removed when the server stops


@pytest.mark.parametrize(
    "stop", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=["SIGTERM", "terminal closed", "Ctrl+C"]
)
def test_the_file_that_opened_the_browser_is_removed_however_the_server_is_stopped(
    started: tuple[subprocess.Popen[str], Path, list[str]], stop: signal.Signals
) -> None:
    process, record, _ = started
    wait_until(record.exists, 60, "the browser to be opened")
    opened = Path(json.loads(record.read_text())["file"])
    assert opened.exists()  # kept for the browser's first read, two minutes at most
    process.send_signal(stop)
    assert process.wait(timeout=30) in (0, 1, -stop, 128 + stop)
    assert not opened.exists()  # removed when the server stops, not left in the temporary folder
