"""Test order, for `make test` and for any pytest run (with `--dist loadfile --no-loadscope-reorder` from
pyproject.toml under `-n`).

`make test` runs the suite in two pytest runs, each on its own number of workers: the files of `tests/`
on four (their tests wait on agents and timeouts often, so a fourth worker fills the cores), then the
browser tests of `e2e/` on three (a fourth browser, server and demo agent would cost more than it gains).

Under `-n`, each worker takes whole files, in the order collected here:

- Every file of `tests/` comes before every file of `e2e/`. A worker's first browser test starts
  Playwright's event loop for the rest of its run, and an asyncio test after it in the same process
  cannot run its own loop. Because a worker takes files in collection order, none gets a `tests/` file
  after an `e2e/` one, in a run over both.
- Within each of the two, files with more tests go first, so the last files handed out, while other
  workers may already be idle, are small ones.

Run without `-n`, the same order is followed in one process.
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

BROWSER_TESTS = "e2e/"

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
