"""A command run in a client terminal that leaves a daemon behind (out of its process group, holding its
output pipe) still ends: its exit is seen, its output kept, and nothing of asyncio's is left open."""

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

from webclient.acp.models import TerminalOutput, TerminalRequest
from webclient.domain.files import FileAccess
from webclient.domain.terminals import TerminalManager


def test_a_command_that_leaves_a_daemon_holding_its_output_still_ends_and_closes_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unraisable: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    pid_file = tmp_path / "daemon.pid"

    def heard(terminal_id: str, output: TerminalOutput) -> None:
        return None

    async def run() -> tuple[str, int | None]:
        manager = TerminalManager(FileAccess([tmp_path]), tmp_path, heard)
        command = f'setsid sleep 60 & echo $! > "{pid_file}"; echo started'
        terminal_id = await manager.create(TerminalRequest(session_id="s", command=command))
        ended = await asyncio.wait_for(manager.wait_for_exit(terminal_id), 10)
        output = manager.output(terminal_id).output
        await asyncio.wait_for(manager.close(), 10)
        return output, ended.exit_code

    try:
        output, code = asyncio.run(run())
        gc.collect()
    finally:
        with contextlib.suppress(ValueError, ProcessLookupError, FileNotFoundError):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
    assert (output.strip(), code) == ("started", 0)
    assert [str(u.exc_value) for u in unraisable] == []
