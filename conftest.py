"""Test order, for `make test`'s workers (pytest-xdist, `-n 3 --dist loadfile --no-loadscope-reorder`).

Each worker takes whole files, in the order collected here. Two rules shape that order:

- Every file of `tests/` comes before every file of `e2e/`. A worker's first browser test starts
  Playwright's event loop for the rest of the run, and an asyncio test after it in the same process cannot
  run its own loop. Because a worker takes files in collection order, none gets a `tests/` file after an
  `e2e/` one.
- Within each of the two, files with more tests go first, so the last files handed out, while the other
  worker may already be idle, are small ones.

Run without `-n`, the same order is followed in one process.
"""

from __future__ import annotations

from collections import Counter

import pytest


def _group(item: pytest.Item) -> int:
    return 1 if item.nodeid.startswith("e2e/") else 0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    files = Counter(item.nodeid.split("::", 1)[0] for item in items)
    first_seen = {path: index for index, path in enumerate(dict.fromkeys(files))}

    def key(item: pytest.Item) -> tuple[int, int, int]:
        path = item.nodeid.split("::", 1)[0]
        return (_group(item), -files[path], first_seen[path])

    items.sort(key=key)  # stable: tests keep their order within a file
