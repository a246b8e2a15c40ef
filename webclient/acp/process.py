"""The agent subprocess: spawn it in its own process group, drain its stderr, stop it for sure."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping, Sequence
from pathlib import Path

from webclient.acp.endpoint import GarbageCallback, Intercept, OverflowCallback
from webclient.acp.stderr_tail import StderrTail
from webclient.acp.transport import NdjsonTransport
from webclient.aio import cancel_and_wait, close_transport, exited
from webclient.errors import AgentExitedError, AgentStartError

# How much asyncio buffers of the agent's stdout before a line counts as long. Long lines are legal (file
# contents, images) and the transport reassembles them up to its own cap; a small buffer keeps the
# memory an endless line can take close to that cap.
STREAM_LIMIT = 1024 * 1024
STDERR_READ = 64 * 1024
EXIT_POLL_INTERVAL = 0.05
# webclient's own settings: an agent never sees them (the supervisor builds the full environment).
OWN_PREFIX = "WEBCLIENT_"


class AgentProcess:
    """One running agent. `start` spawns it; `stop` closes stdin, then terminates, then kills its group.

    `env` is the agent's whole environment; without it, ours without `WEBCLIENT_*`, plus `extra_env`.
    An `AgentEndpoint` (`webclient.acp.endpoint`): the agent runs here, and speaks over its stdio.
    """

    remote = False

    def __init__(
        self,
        argv: Sequence[str],
        cwd: Path,
        stderr_lines: int = 30,
        extra_env: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        if not argv:
            raise AgentStartError("empty agent command")
        self.argv = list(argv)
        self.cwd = cwd
        if env is None:
            env = {k: v for k, v in os.environ.items() if not k.startswith(OWN_PREFIX)}
        self.env = {**env, **(extra_env or {})}
        self._stderr = StderrTail(max_lines=stderr_lines)
        self._process: asyncio.subprocess.Process | None = None
        self._stderr_task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        try:
            self._process = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=self.cwd,
                env=self.env,
                limit=STREAM_LIMIT,
                start_new_session=True,  # own process group, so stop() reaches its children too
            )
        except OSError as exc:
            raise AgentStartError(f"could not start {self.argv[0]!r}: {exc.strerror or exc}") from exc
        self._stderr_task = asyncio.create_task(self._drain_stderr(), name="agent-stderr")

    @property
    def description(self) -> str:
        return self.argv[0]

    def channel(
        self,
        on_garbage: GarbageCallback,
        *,
        on_overflow: OverflowCallback | None = None,
        intercept: Intercept | None = None,
    ) -> NdjsonTransport:
        """Newline-delimited JSON over the started process's stdin and stdout."""
        proc = self.process
        assert proc.stdout is not None and proc.stdin is not None
        return NdjsonTransport(
            proc.stdout, proc.stdin, on_garbage, on_overflow=on_overflow, intercept=intercept
        )

    def exit_error(self, code: int | None) -> AgentExitedError:
        return AgentExitedError(code, self.stderr_tail())

    @property
    def process(self) -> asyncio.subprocess.Process:
        if self._process is None:
            raise RuntimeError("agent process not started")
        return self._process

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    @property
    def returncode(self) -> int | None:
        return self._process.returncode if self._process else None

    def stderr_tail(self) -> list[str]:
        """The last lines the agent wrote to stderr (at most 64 KiB in all, long lines cut)."""
        return self._stderr.lines()

    async def wait(self) -> int:
        """Wait for the process to end; return its exit code after stderr has been read to the end."""
        code = await self._exited()
        if self._stderr_task is not None:
            await asyncio.wait({self._stderr_task}, timeout=1.0)  # the tail, as complete as it gets
        return code

    async def stop(self, grace: float = 2.0) -> None:
        """Close stdin, wait, then SIGTERM and SIGKILL the whole process group. Always reaps."""
        proc = self._process
        if proc is None:
            return
        if proc.returncode is None and proc.stdin is not None and not proc.stdin.is_closing():
            with contextlib.suppress(OSError, RuntimeError):
                proc.stdin.close()
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None:
                self._signal_group(sig)
            try:
                async with asyncio.timeout(grace):
                    await self._exited()
                break
            except TimeoutError:
                continue
        # The agent may have left children behind in its group (codex-acp does); end them too.
        self._signal_group(signal.SIGKILL)
        with contextlib.suppress(TimeoutError):  # now the pipes close: let asyncio finish the transport
            async with asyncio.timeout(grace):
                await proc.wait()
        close_transport(proc)
        if self._stderr_task is not None:
            await cancel_and_wait(self._stderr_task)

    async def _exited(self) -> int:
        """The exit code, as soon as the agent itself has exited.

        Not `process.wait()`: (on Python 3.11) it also waits until every pipe is closed, and a child the
        agent started that inherited its stdout or stderr keeps them open long after the agent died.
        """
        return await exited(self.process, EXIT_POLL_INTERVAL)

    def _signal_group(self, sig: signal.Signals) -> None:
        if self._process is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._process.pid, sig)

    async def _drain_stderr(self) -> None:
        stream = self.process.stderr
        if stream is None:
            return
        # Pieces, not readline(): a line of any length then costs no more than the tail keeps of it.
        while data := await stream.read(STDERR_READ):
            self._stderr.feed(data)
        self._stderr.close()
