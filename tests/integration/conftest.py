"""Fixtures for tests against a live server running one of the scripted agents."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.support.live import LiveServer, Serve, run_server, scripted_agent


@pytest.fixture
def serve(workspace: Path) -> Iterator[Serve]:
    """Start a live server with `tests/agents/NAME.py` as its agent; stopped and reaped after the test.

    The server's output is printed at teardown, so pytest shows it when the test fails.
    """
    servers: list[LiveServer] = []
    with ExitStack() as stack:

        def start(name: str, *args: str, env: dict[str, str] | None = None) -> LiveServer:
            server = stack.enter_context(run_server(scripted_agent(name, *args), cwd=workspace, env=env))
            servers.append(server)
            return server

        yield start
    for server in servers:
        print(f"--- server output ({server.base}) ---\n{server.log()}")
