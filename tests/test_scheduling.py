"""The root conftest's placement of test files on `make test`'s workers, in a pytest run of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
RECORD = """
import os, time

def test_records_where_it_ran(request):
    path = request.node.nodeid.split('::')[0]
    with open(os.environ["PLACEMENT_LOG"], "a") as log:
        log.write(f"{os.environ['PYTEST_XDIST_WORKER']} {path}\\n")
    if path.startswith("e2e/"):
        time.sleep(0.2)  # long enough that, without a limit, an idle worker would take the next one
"""
FILES = ("tests/test_a.py", "tests/test_b.py", "tests/test_c.py", *(f"e2e/test_{n}.py" for n in "wxyz"))


def test_browser_files_go_to_at_most_the_limit_of_workers_and_never_before_a_tests_file(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeconftest((ROOT / "conftest.py").read_text())
    for name in FILES:
        path = pytester.path / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(RECORD)
    log = pytester.path / "placement.log"
    monkeypatch.setenv("PLACEMENT_LOG", str(log))

    # Two workers with a limit of one: without it, both go on to the browser tests' files.
    options = ["-n", "2", "--dist", "loadfile", "--browser-workers", "1"]
    result = pytester.runpytest(*options, "-p", "no:cacheprovider", "-p", "no:asyncio")

    result.assert_outcomes(passed=len(FILES))
    runs = [line.split() for line in log.read_text().splitlines()]
    assert sorted(path for _, path in runs) == sorted(FILES)
    browsing = {worker for worker, path in runs if path.startswith("e2e/")}
    assert len(browsing) == 1
    for worker in browsing:
        paths = [path for who, path in runs if who == worker]
        first_browser = next(i for i, path in enumerate(paths) if path.startswith("e2e/"))
        assert all(path.startswith("e2e/") for path in paths[first_browser:]), paths
