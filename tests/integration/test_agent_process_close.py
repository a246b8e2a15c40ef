"""A stopped agent leaves nothing of asyncio's open behind, even when a process it started left its group
and still holds its pipes: a transport left open outlives its event loop and fails when collected
("Exception ignored in BaseSubprocessTransport.__del__ ... Event loop is closed")."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from webclient.acp.process import AgentProcess

# An "agent" that starts a daemon of its own (`setsid`: out of the agent's process group, so the group's
# SIGKILL misses it) which inherits its stdout and stderr, then reads its stdin.
ESCAPING = 'setsid sleep 60 & echo $! > "$1"; exec cat'


def test_stopping_an_agent_closes_its_pipes_though_a_process_that_left_its_group_holds_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unraisable: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    pid_file = tmp_path / "daemon.pid"

    async def start_and_stop() -> None:
        agent = AgentProcess(["sh", "-c", ESCAPING, "agent", str(pid_file)], tmp_path)
        await agent.start()
        while not pid_file.exists() or not pid_file.read_text().strip():
            await asyncio.sleep(0.01)
        await agent.stop(grace=0.5)

    try:
        asyncio.run(start_and_stop())  # its own event loop, closed when it returns
        gc.collect()
    finally:
        with contextlib.suppress(ValueError, ProcessLookupError, FileNotFoundError):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
    assert [str(u.exc_value) for u in unraisable] == []
