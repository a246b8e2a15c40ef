"""Fixtures for tests against a live server running one of the scripted agents."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.support.live import LiveServer, Serve, run_server, scripted_agent, serve_in_thread


@pytest.fixture
def serve(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Serve]:
    """Start a live server with `tests/agents/NAME.py` as its agent, on a thread of the test process (the
    server the command line builds, with a real port and a real agent subprocess); stopped after the test.

    `env` is the server's environment: it is set in this process for the rest of the test, where the
    server reads its settings and its agent inherits it, as a server process and its agent would.
    """
    with ExitStack() as stack:

        def start(name: str, *args: str, env: dict[str, str] | None = None) -> LiveServer:
            for key, value in (env or {}).items():
                monkeypatch.setenv(key, value)
            return stack.enter_context(serve_in_thread(scripted_agent(name, *args), cwd=workspace))

        yield start


@pytest.fixture
def serve_process(workspace: Path) -> Iterator[Serve]:
    """`serve`, as a server process of its own: for a test that signals it, measures its memory or looks
    at its children. Stopped and reaped after the test.

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
