"""The page's JavaScript unit tests (tests/js/), run by Node's own test runner as part of this suite.

They check the pure parts of static/ (e.g. the suggestion offer and auto-send rules) without a browser.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

JS_TESTS = Path(__file__).resolve().parent / "js"
NODE = shutil.which("node")


@pytest.mark.skipif(
    NODE is None, reason="Node.js is not installed: the tests in tests/js/ need `node --test`"
)
def test_the_javascript_unit_tests_pass() -> None:
    assert NODE is not None
    assert sorted(JS_TESTS.glob("*.test.js")), "no JavaScript tests found"
    # Node 20 takes a directory and runs every *.test.js under it.
    run = subprocess.run(
        [NODE, "--test", str(JS_TESTS)], capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "# fail 0" in run.stdout, run.stdout
