"""Fixtures for the tests that drive the real demo agent as a subprocess over stdio.

The client they drive it with is in tests/support/demo_agent.py (ACP v1) and demo_agent_v2.py (v2).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.support.demo_agent import AgentHarness, RunningAgent, SharedAgents, spawned_agent
from tests.support.demo_agent_v2 import V2Harness, spawned_v2_agent


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A small project: a README, a Python module, a subdirectory, plus things listings must skip."""
    root = tmp_path / "workspace"
    (root / "src").mkdir(parents=True)
    (root / "README.md").write_text("# Demo project\n\nSome words.\n\n## Usage\n\nRun it.\n")
    (root / "src" / "app.py").write_text(
        '"""The app."""\n\n\nclass Greeter:\n    """Says hello."""\n\n\ndef main(argv, *, loud=False):\n'
        "    return 0\n"
    )
    (root / "notes.txt").write_text("first line\nsecond line\n")
    for skipped in (".git", ".venv", "__pycache__", "node_modules"):
        (root / skipped).mkdir()
    (root / ".env").write_text("SECRET=1\n")
    return root


@pytest.fixture
def state_dir(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared_agents(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[SharedAgents[RunningAgent]]:
    """The module's shared demo agents: its tests run in the module's event loop (its ``pytestmark``)."""
    async with contextlib.AsyncExitStack() as stack:
        yield SharedAgents(tmp_path_factory.mktemp("shared-agents"), stack, spawned_agent)


@pytest.fixture
def agent(workspace: Path, shared_agents: SharedAgents[RunningAgent]) -> Iterator[AgentHarness]:
    """This test's view of a demo agent it shares with its module's other tests, chosen at ``initialize``."""
    harness = AgentHarness(workspace, shared_agents)
    yield harness
    harness.detach()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared_v2_agents(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[SharedAgents[Any]]:
    """The module's shared demo agents spoken to in ACP v2 (``V2Agent``s)."""
    async with contextlib.AsyncExitStack() as stack:
        yield SharedAgents(tmp_path_factory.mktemp("shared-v2-agents"), stack, spawned_v2_agent)


@pytest.fixture
def agent_v2(workspace: Path, shared_v2_agents: SharedAgents[Any]) -> Iterator[Any]:
    """This test's ACP v2 view (a ``V2Harness``) of a demo agent it shares with its module's other tests."""
    harness = V2Harness(workspace, shared_v2_agents)
    yield harness
    harness.detach()
