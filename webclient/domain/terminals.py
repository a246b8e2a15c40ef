"""Client terminals (ACP `terminal/*`): commands an agent runs through us, one manager per session.

Each command runs in its own process group, in the session's directory (a `cwd` outside it is refused),
with the user's environment (never webclient's own `WEBCLIENT_*` variables) plus the request's `env`.
Output is captured as text, keeping the tail within `outputByteLimit` bytes, cut at a character
boundary. A session has at most `MAX_LIVE_TERMINALS` terminals not yet released (a create past that is
refused, with an error that says so), and they keep at most `MAX_SESSION_OUTPUT_CHARS` of output
together: past that, the oldest keep only their last `KEPT_TAIL_CHARS`. Every process group is killed
on release, and when the manager is closed (session close, agent exit, server shutdown); when a command
exits, what it left running in its group ends with it.
The manager owns the task that reads each command's output and reaps it.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import itertools
import os
import signal
from collections.abc import Callable
from pathlib import Path

from webclient.acp.heap import give_back_free_memory
from webclient.acp.models import TerminalExit, TerminalOutput, TerminalRequest
from webclient.aio import cancel_and_wait, close_transport, exited
from webclient.domain.files import FileAccess, FileAccessError
from webclient.errors import RequestRefused

# What we keep of one command's output even when the agent sets no limit (or a larger one): a command
# like `yes` must not fill the server's memory.
MAX_OUTPUT_BYTES = 4 * 1024 * 1024
READ_CHUNK = 64 * 1024
# A session's terminals not yet released, and the output they keep together (40 commands of 4.2 MB each
# that stayed alive once held 244 MiB); past the total, the oldest keep their tail only.
MAX_LIVE_TERMINALS = 32
MAX_SESSION_OUTPUT_CHARS = 16 * 1024 * 1024
KEPT_TAIL_CHARS = 64 * 1024
# After the command exits, how long its output pipe may stay open (a background child holding it)
# before we report the exit anyway.
DRAIN_GRACE_SECONDS = 1.0

TerminalListener = Callable[[str, TerminalOutput], None]


class TerminalError(RequestRefused):
    """A terminal request we refuse; the agent gets it as a JSON-RPC error, the message says why."""

    def __init__(self, message: str) -> None:
        super().__init__(RequestRefused.INVALID_PARAMS, message)


class OutputBuffer:
    """A command's output as text, keeping at most `limit` UTF-8 bytes of its tail."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.text = ""
        self.truncated = False
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def shrink(self, chars: int) -> None:
        """Keep only the last `chars` characters, from now on too (a session's total was reached)."""
        self.limit = min(self.limit, chars)
        if len(self.text) > chars:
            self.text = self.text[-chars:]
            self.truncated = True

    def append(self, data: bytes, *, final: bool = False) -> None:
        self.text += self._decoder.decode(data, final)
        if len(self.text) * 4 <= self.limit:  # a character is at most 4 bytes: surely within the limit
            return
        encoded = self.text.encode("utf-8")
        if len(encoded) <= self.limit:
            return
        tail = encoded[len(encoded) - self.limit :]
        start = 0
        while start < len(tail) and tail[start] & 0xC0 == 0x80:  # a UTF-8 continuation byte
            start += 1
        self.text = tail[start:].decode("utf-8")
        self.truncated = True


class Terminal:
    """One command: its process, its output, and how it ended."""

    def __init__(self, terminal_id: str, process: asyncio.subprocess.Process, limit: int) -> None:
        self.id = terminal_id
        self.process = process
        self.buffer = OutputBuffer(limit)
        self.exit: TerminalExit | None = None
        self.exited = asyncio.Event()
        self._group_gone = False

    def snapshot(self) -> TerminalOutput:
        return TerminalOutput(output=self.buffer.text, truncated=self.buffer.truncated, exit=self.exit)

    def kill(self) -> None:
        """SIGKILL the command's whole process group (its children too), if anything is left of it."""
        if self._group_gone:
            return  # its id may belong to another process by now
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)

    def end_group(self) -> None:
        """The command exited: what it left running in its group ends with it (as a closed terminal's
        jobs do), and the group's id is never signalled again."""
        self.kill()
        self._group_gone = True


class TerminalManager:
    """The terminals of one session. `listener` hears every change of output or exit, by terminal id."""

    def __init__(self, files: FileAccess, cwd: Path, listener: TerminalListener) -> None:
        self._files = files
        # No command gets a variable whose value holds one of these (the token), as no agent does.
        self.secrets: tuple[str, ...] = ()
        self._cwd = cwd
        self._listener = listener
        self._terminals: dict[str, Terminal] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._ids = itertools.count(1)

    async def create(self, request: TerminalRequest) -> str:
        """Start the command; its id. Refused (TerminalError) for a cwd outside the session's directory,
        and past `MAX_LIVE_TERMINALS` terminals not released."""
        if len(self._terminals) >= MAX_LIVE_TERMINALS:
            raise TerminalError(
                f"refused to run {request.command!r}: this session has {MAX_LIVE_TERMINALS} terminals "
                "already, the most it may keep; release one (terminal/release) first"
            )
        cwd = self._working_directory(request.cwd)
        # One command line without arguments runs in a shell, as agents that send `git status` expect.
        argv = [request.command, *request.args] if request.args else ["/bin/sh", "-c", request.command]
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                cwd=cwd,
                env=command_environment(request.env, self.secrets),
                start_new_session=True,  # its own process group: kill reaches its children
            )
        except OSError as exc:
            raise TerminalError(f"could not run {request.command!r}: {exc.strerror or exc}") from None
        asked = request.output_byte_limit
        limit = MAX_OUTPUT_BYTES if asked is None else min(asked, MAX_OUTPUT_BYTES)
        terminal = Terminal(f"term-{next(self._ids)}", process, limit)
        self._terminals[terminal.id] = terminal
        task = asyncio.create_task(self._follow(terminal), name=f"terminal-{terminal.id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return terminal.id

    def output(self, terminal_id: str) -> TerminalOutput:
        return self._get(terminal_id).snapshot()

    async def wait_for_exit(self, terminal_id: str) -> TerminalExit:
        terminal = self._get(terminal_id)
        await terminal.exited.wait()
        assert terminal.exit is not None  # set before the event
        return terminal.exit

    def kill(self, terminal_id: str) -> None:
        """Kill the command; the terminal stays valid for `output` and `wait_for_exit`."""
        self._get(terminal_id).kill()

    def release(self, terminal_id: str) -> None:
        """Kill the command if it still runs and forget the terminal (its card keeps the last output)."""
        self._get(terminal_id).kill()
        del self._terminals[terminal_id]

    def release_all(self) -> None:
        """Kill every command and forget every terminal (the agent that asked for them is gone)."""
        for terminal in self._terminals.values():
            terminal.kill()
        self._terminals.clear()

    async def close(self) -> None:
        """Kill every command and wait until each is reaped."""
        self.release_all()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await asyncio.to_thread(give_back_free_memory)  # their output, freed, goes back to the system

    @property
    def kept_chars(self) -> int:
        """The output the live terminals keep together, in characters."""
        return sum(len(t.buffer.text) for t in self._terminals.values())

    @property
    def running(self) -> tuple[int, ...]:
        """The process ids of the commands that have not exited yet."""
        return tuple(t.process.pid for t in self._terminals.values() if t.exit is None)

    # --- internals --------------------------------------------------------------------------------------

    def _get(self, terminal_id: str) -> Terminal:
        terminal = self._terminals.get(terminal_id)
        if terminal is None:
            raise TerminalError(f"no terminal {terminal_id!r} in this session (never created, or released)")
        return terminal

    def _working_directory(self, cwd: str | None) -> Path:
        if cwd is None:
            return self._cwd
        try:
            real = self._files.resolve(cwd)
        except FileAccessError as exc:
            raise TerminalError(f"refused to run a command in {cwd!r}: {exc}") from None
        if not real.is_dir():
            raise TerminalError(f"refused to run a command in {cwd!r}: not a directory")
        return real

    async def _follow(self, terminal: Terminal) -> None:
        """Read the command's output as it comes, then record how it ended."""
        reader = asyncio.create_task(self._read(terminal))
        try:
            code = await exited(terminal.process)
            await asyncio.wait({reader}, timeout=DRAIN_GRACE_SECONDS)
        finally:
            if not reader.done():
                terminal.kill()  # a child still holds the pipe open: it goes with the command
            await cancel_and_wait(reader)
            close_transport(terminal.process)  # one that left the group holds it still
        terminal.end_group()
        terminal.exit = exit_of(code)
        terminal.exited.set()
        self._listener(terminal.id, terminal.snapshot())

    async def _read(self, terminal: Terminal) -> None:
        stream = terminal.process.stdout
        assert stream is not None
        while data := await stream.read(READ_CHUNK):
            terminal.buffer.append(data)
            self._keep_within_total(terminal)
            self._listener(terminal.id, terminal.snapshot())
        terminal.buffer.append(b"", final=True)

    def _keep_within_total(self, growing: Terminal) -> None:
        """Past the session's total, the oldest other terminals keep their tail only, then this one."""
        excess = self.kept_chars - MAX_SESSION_OUTPUT_CHARS
        for terminal in (*(t for t in self._terminals.values() if t is not growing), growing):
            if excess <= 0:
                return
            before = len(terminal.buffer.text)
            terminal.buffer.shrink(KEPT_TAIL_CHARS)
            excess -= before - len(terminal.buffer.text)


def exit_of(returncode: int) -> TerminalExit:
    """A process's return code as an exit: a negative code means the signal of that number ended it."""
    if returncode >= 0:
        return TerminalExit(exit_code=returncode)
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = f"signal {-returncode}"
    return TerminalExit(signal=name)


def command_environment(extra: tuple[tuple[str, str], ...], hidden: tuple[str, ...] = ()) -> dict[str, str]:
    """The user's environment without webclient's own settings and without any variable whose value
    holds one of `hidden` (the sign-in token), as the agent's own environment; plus the variables the
    agent asked for."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("WEBCLIENT_") and not any(secret and secret in v for secret in hidden)
    }
    env.update(extra)
    return env
