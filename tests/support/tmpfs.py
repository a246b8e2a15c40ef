"""A small real disk for the tests that fill one: a tmpfs mounted on a fresh folder (root is needed, as in
CI; elsewhere the test is skipped, and in CI a failed mount fails it)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def small_tmpfs(folder: Path, size: str) -> Iterator[Path]:
    """`folder`, made and mounted as a tmpfs of `size` (e.g. `64k`, `1m`) until the block ends."""
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True, check=False
    )
    if mounted.returncode != 0:
        why = mounted.stderr.decode().strip()
        if os.environ.get("CI"):
            pytest.fail(f"CI runs as root and must test a real full disk: {why}")
        pytest.skip(f"cannot mount a tmpfs here: {why}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)
