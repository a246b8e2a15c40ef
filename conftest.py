"""Test order and placement, for `make test`'s workers (pytest-xdist, `-n 4 --browser-workers 3`, with
`--dist loadfile --no-loadscope-reorder` from pyproject.toml).

Each worker takes whole files, in the order collected here. Two rules shape that order:

- Every file of `tests/` comes before every file of `e2e/`. A worker's first browser test starts
  Playwright's event loop for the rest of the run, and an asyncio test after it in the same process cannot
  run its own loop. Because a worker takes files in collection order, none gets a `tests/` file after an
  `e2e/` one.
- Within each of the two, files with more tests go first, so the last files handed out, while the other
  worker may already be idle, are small ones.

Browser tests run on at most `--browser-workers` workers. The files of `tests/` wait on agents and
timeouts often, so a fourth worker fills the cores while they run; the browser tests keep both cores busy
with three, and each worker that joins them costs a browser, a server and a demo agent more. So the
first workers to run out of `tests/` files go on to the browser tests, up to the limit, and the others
stop once no `tests/` file is left (`LimitedBrowserScheduling`).

Run without `-n`, the same order is followed in one process.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from xdist.scheduler import LoadFileScheduling

BROWSER_TESTS = "e2e/"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--browser-workers",
        type=int,
        default=0,
        help="with -n and --dist loadfile: run the browser tests (e2e/) on at most this many workers "
        "(0: on any)",
    )


def _group(item: pytest.Item) -> int:
    return 1 if _is_browser_file(item.nodeid) else 0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    files = Counter(item.nodeid.split("::", 1)[0] for item in items)
    first_seen = {path: index for index, path in enumerate(dict.fromkeys(files))}

    def key(item: pytest.Item) -> tuple[int, int, int]:
        path = item.nodeid.split("::", 1)[0]
        return (_group(item), -files[path], first_seen[path])

    items.sort(key=key)  # stable: tests keep their order within a file


class LimitedBrowserScheduling(LoadFileScheduling):  # type: ignore[misc]  # xdist ships no types
    """`--dist loadfile`, with the browser tests' files going to at most `limit` workers.

    A worker is given the first file in the queue it may take: any file while it runs browser tests or
    fewer than `limit` workers do, otherwise only a file of `tests/`. A worker with nothing it may take is
    shut down (it finishes what it has). Built on pytest-xdist 3.8's `LoadScopeScheduling`, whose
    `_assign_work_unit` (which hands out the first file in line) this wraps; pyproject.toml pins that
    version.
    """

    def __init__(self, config: pytest.Config, log: Any, limit: int) -> None:
        super().__init__(config, log)
        self.limit = limit

    def _assign_work_unit(self, node: Any) -> None:
        browsing = [n for n, work in self.assigned_work.items() if any(map(_is_browser_file, work))]
        may_browse = node in browsing or len(browsing) < self.limit
        scope = next((s for s in self.workqueue if may_browse or not _is_browser_file(s)), None)
        if scope is None:
            node.shutdown()
            return
        self.workqueue.move_to_end(scope, last=False)  # xdist's own assignment takes the first in line
        super()._assign_work_unit(node)


def _is_browser_file(scope: str) -> bool:
    return scope.startswith(BROWSER_TESTS)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> LoadFileScheduling | None:
    limit: int = config.getoption("browser_workers")
    if limit <= 0 or config.getoption("dist") != "loadfile":
        return None  # xdist's own
    return LimitedBrowserScheduling(config, log, limit)
