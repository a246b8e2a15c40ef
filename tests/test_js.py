"""The page's JavaScript unit tests (tests/js/), run by Node's own test runner as part of this suite.

They check the pure parts of static/ (e.g. the suggestion offer and auto-send rules) without a browser.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

JS_TESTS = Path(__file__).resolve().parent / "js"
NODE = shutil.which("node")


def test_the_javascript_unit_tests_pass() -> None:
    if NODE is None:
        # `make test` installs Node.js (scripts/ensure-node); CI must never pass without these tests.
        if os.environ.get("CI"):
            pytest.fail("Node.js is not installed: CI runs the tests in tests/js/ with `node --test`")
        pytest.skip("Node.js is not installed: the tests in tests/js/ need `node --test`")
    assert sorted(JS_TESTS.glob("*.test.js")), "no JavaScript tests found"
    # Node 20 takes a directory and runs every *.test.js under it.
    run = subprocess.run(
        [NODE, "--test", str(JS_TESTS)], capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "# fail 0" in run.stdout, run.stdout
