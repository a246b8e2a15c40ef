"""Shared fixtures: workspaces and live servers with real agent subprocesses."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.live import LiveServer, run_server


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A small project for the agent to look at."""
    root = tmp_path / "workspace"
    (root / "src").mkdir(parents=True)
    (root / "README.md").write_text("# Sample project\n\nA workspace for tests.\n")
    (root / "src" / "app.py").write_text('"""App."""\n\n\ndef main() -> int:\n    return 0\n')
    (root / "notes.txt").write_text("remember the milk\n")
    return root


@pytest.fixture
def demo_server(workspace: Path, tmp_path: Path) -> Iterator[LiveServer]:
    """The server with the bundled demo agent, in the sample workspace."""
    with run_server(cwd=workspace, env={"WEBCLIENT_DEMO_STATE_DIR": str(tmp_path / "state")}) as server:
        yield server
