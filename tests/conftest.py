"""Shared fixtures: a sample workspace, and the app in-process with real agent subprocesses."""

from __future__ import annotations

import os

# The suite's agents speak ACP v1 unless a test asks for v2 or auto itself (they are v1 agents, and
# `auto` would start each of them twice). `WEBCLIENT_PROTOCOL=auto make test` runs everything else
# through the negotiation too.
os.environ.setdefault("WEBCLIENT_PROTOCOL", "1")

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.support.inprocess import InProcessApp, StartApp, run_app
from tests.support.live import scripted_agent
from tests.support.workspace import make_workspace


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A small project for the agent to look at."""
    return make_workspace(tmp_path / "workspace")


@pytest.fixture
def start_app(workspace: Path, tmp_path: Path) -> Iterator[StartApp]:
    """Run the app in-process in the sample workspace; stopped (agent reaped) after the test.

    `start_app()` runs the demo agent (its state in this test's tmp_path), `start_app("NAME", *args)` the
    scripted agent `tests/agents/NAME.py`; keyword arguments are `run_app`'s (env, settings).
    """
    with ExitStack() as stack:

        def start(name: str = "", *args: str, **kwargs: object) -> InProcessApp:
            env = {"WEBCLIENT_DEMO_STATE_DIR": str(tmp_path / "state"), **kwargs.pop("env", {})}  # type: ignore[dict-item]
            agent = scripted_agent(name, *args) if name else ""
            return stack.enter_context(run_app(agent, cwd=workspace, env=env, **kwargs))

        yield start
