"""The root conftest's order of test files, in pytest runs of their own: what `make test`'s workers take."""

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
        log.write(f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')} {path}\\n")
    time.sleep(0.1)  # long enough that both workers take files
"""
# Collected in this order (pytest sorts by path); how many tests each file has.
SIZES = {"e2e/test_a.py": 1, "e2e/test_b.py": 3, "tests/test_c.py": 1, "tests/test_d.py": 2}


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with the root conftest and the files of SIZES, whose tests log where they ran."""
    pytester.makeconftest((ROOT / "conftest.py").read_text())
    for name, size in SIZES.items():
        path = pytester.path / name
        path.parent.mkdir(exist_ok=True)
        path.write_text("".join(RECORD.replace("where_it_ran", f"where_it_ran_{n}") for n in range(size)))
    log = pytester.path / "placement.log"
    monkeypatch.setenv("PLACEMENT_LOG", str(log))
    return log


def run(pytester: pytest.Pytester, *options: str) -> None:
    result = pytester.runpytest(*options, "-p", "no:cacheprovider", "-p", "no:asyncio")
    result.assert_outcomes(passed=sum(SIZES.values()))


def test_tests_files_come_before_browser_files_larger_files_first(
    pytester: pytest.Pytester, project: Path
) -> None:
    run(pytester)

    paths = list(dict.fromkeys(line.split()[1] for line in project.read_text().splitlines()))
    assert paths == ["tests/test_d.py", "tests/test_c.py", "e2e/test_b.py", "e2e/test_a.py"]


def test_no_worker_takes_a_tests_file_after_a_browser_file(pytester: pytest.Pytester, project: Path) -> None:
    run(pytester, "-n", "2", "--dist", "loadfile", "--no-loadscope-reorder")

    runs = [line.split() for line in project.read_text().splitlines()]
    assert sorted({path for _, path in runs}) == sorted(SIZES)
    for worker in {who for who, _ in runs}:
        groups = [path.startswith("e2e/") for who, path in runs if who == worker]
        assert groups == sorted(groups), (worker, runs)


def test_the_tests_of_a_spread_file_go_to_every_worker_and_whole_files_to_one(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeconftest((ROOT / "conftest.py").read_text())
    spread, whole = pytester.path / "e2e/test_room.py", pytester.path / "e2e/test_whole.py"
    spread.parent.mkdir()
    for path in (spread, whole):
        path.write_text("".join(RECORD.replace("where_it_ran", f"where_it_ran_{n}") for n in range(6)))
    log = pytester.path / "placement.log"
    monkeypatch.setenv("PLACEMENT_LOG", str(log))

    result = pytester.runpytest(
        "-n",
        "2",
        "--dist",
        "loadfile",
        "--no-loadscope-reorder",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:asyncio",
    )
    result.assert_outcomes(passed=12)

    runs = [line.split() for line in log.read_text().splitlines()]
    assert len({who for who, path in runs if path == "e2e/test_room.py"}) == 2
    assert len({who for who, path in runs if path == "e2e/test_whole.py"}) == 1
