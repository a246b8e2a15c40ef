"""Test order, for `make test` and for any pytest run (with `--dist loadfile --no-loadscope-reorder` from
pyproject.toml under `-n`).

`make test` runs the whole suite in one pytest run on five workers: the files of `tests/` keep the cores
busy, and as they run out, each worker goes on to the browser tests of `e2e/`, whose waits for the page
leave the cores half idle on fewer workers.

Under `-n`, each worker takes whole files, in the order collected here:

- Every file of `tests/` comes before every file of `e2e/`. A worker's first browser test starts
  Playwright's event loop for the rest of its run, and an asyncio test after it in the same process
  cannot run its own loop. Because a worker takes files in collection order, none gets a `tests/` file
  after an `e2e/` one, in a run over both.
- Within each of the two, files with more tests go first, so the last files handed out, while other
  workers may already be idle, are small ones.

Run without `-n`, the same order is followed in one process.

A few long files are spread instead (SPREAD): their tests go one by one to whichever worker is free, so that
one file does not keep one worker busy long after the others ran out of work. Each is a file whose tests
share no costly module fixture, or one whose module server is cheap to start on every worker that takes
some of its tests (`tests.support.live.serve_in_thread` with a scripted agent).
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadFileScheduling

BROWSER_TESTS = "e2e/"
# The files whose tests are handed out one by one (see above), with what one run of each takes.
SPREAD = frozenset(
    {
        "e2e/test_turn_end_race.py",  # 28 runs of a race, 2 to 8 s each
        "e2e/test_room.py",  # every preset in every style at both sizes, 20 s each on a busy machine
        "e2e/test_suggestion_styles.py",  # the styles' tests and their pictures, on the shared server
        "tests/integration/test_memory_floods.py",  # four floods, each with a server of its own
    }
)

# What webclient remembers between starts (the ACP version each agent answered) never goes to the user's
# state folder from a test: servers built before any test (a module's or the session's) share this one,
# and each test gets its own below, so an agent's first start pays in every test that expects it to.
os.environ["WEBCLIENT_STATE_DIR"] = tempfile.mkdtemp(prefix="webclient-state-")
# Nor does a test keep transcripts unless it asks to (WEBCLIENT_KEEP_TRANSCRIPTS=1 in its server's
# environment): the sessions one test closed would be listed as stored copies in the next one's sidebar.
os.environ.setdefault("WEBCLIENT_KEEP_TRANSCRIPTS", "0")


@pytest.fixture(autouse=True)
def own_state_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    state = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("WEBCLIENT_STATE_DIR", str(state))
    yield state


def _group(path: str) -> int:
    return 1 if path.startswith(BROWSER_TESTS) else 0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    files = Counter(item.nodeid.split("::", 1)[0] for item in items)
    first_seen = {path: index for index, path in enumerate(dict.fromkeys(files))}

    def key(item: pytest.Item) -> tuple[int, int, int]:
        path = item.nodeid.split("::", 1)[0]
        return (_group(path), -files[path], first_seen[path])

    items.sort(key=key)  # stable: tests keep their order within a file


class _Scheduling(LoadFileScheduling):  # type: ignore[misc]  # xdist has no type hints
    """`--dist loadfile`, except that the tests of a SPREAD file are work units of their own."""

    def _split_scope(self, nodeid: str) -> str:
        path = nodeid.split("::", 1)[0]
        return nodeid if path in SPREAD else path


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> LoadFileScheduling | None:
    """Ours for `--dist loadfile` (pyproject.toml's default); any other distribution is xdist's own."""
    if config.getoption("dist") != "loadfile":
        return None
    return _Scheduling(config, log)
