"""ACP v2 display terminals: the agent runs `run <command>` itself and shows it as agent-owned output.

v2 has no client terminals. The tool call embeds ``{"type": "terminal", "terminalId"}``; the terminal's
state goes out as ``terminal_update`` (command, cwd, an ``output.data`` base64 snapshot, ``exitStatus``)
and its bytes as ``terminal_output_chunk`` (each chunk base64 on its own). Only the user's own `run`
prompt gets here, and only after the user allowed it; the command runs in the session's directory, in its
own process group, so a cancelled turn (or a closed connection) kills all of it.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import signal
import uuid
from typing import TYPE_CHECKING, Literal

from acp.helpers import update_tool_call
from acp.schema import TerminalToolCallContent

from .blocks import JsonDict
from .markdown import code, fenced

if TYPE_CHECKING:
    from .tool_context import ToolContext

__all__ = ["run_in_display_terminal", "show_in_display_terminal"]

OUTPUT_BYTE_LIMIT = 64 * 1024
READ_SIZE = 4096
REPLY_LINES = 20


async def show_in_display_terminal(ctx: ToolContext, tool_id: str, command: str, output: str) -> None:
    """Show finished (pretend) output as one snapshot: the command, all of its bytes, exit code 0."""
    terminal_id = _terminal_id()
    await ctx.send(
        _terminal_update(
            terminal_id,
            command=command,
            cwd=str(ctx.workspace.root),
            output={"data": _b64(output.encode("utf-8"))},
            exitStatus={"exitCode": 0},
        )
    )
    await ctx.send(
        update_tool_call(
            tool_id,
            status="completed",
            content=[TerminalToolCallContent(type="terminal", terminal_id=terminal_id)],
            raw_output={"exitCode": 0, "stdout": output},
        )
    )


async def run_in_display_terminal(ctx: ToolContext, tool_id: str, command: str) -> str:
    """Run ``sh -c command`` in the workspace, streaming into a display terminal; the reply text."""
    terminal_id, cwd = _terminal_id(), str(ctx.workspace.root)
    await ctx.send(_terminal_update(terminal_id, command=command, cwd=cwd, output={"data": ""}))
    embed = [TerminalToolCallContent(type="terminal", terminal_id=terminal_id)]
    await ctx.send(update_tool_call(tool_id, status="in_progress", content=embed))
    try:
        process = await asyncio.create_subprocess_exec(
            "sh", "-c", command, cwd=cwd, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    except OSError as exc:
        await ctx.send(_terminal_update(terminal_id, exitStatus={}))
        await ctx.send(update_tool_call(tool_id, status="failed", raw_output={"error": str(exc)}))
        return f"I could not start {code(command)}: {exc}"
    kept = bytearray()
    try:
        truncated = await _pump_until_done_or_cancelled(ctx, terminal_id, process, kept)
    finally:
        _kill(process)
        await process.wait()
    exit_code, signal_name = _exit(process.returncode)
    exit_status = {"exitCode": exit_code} if signal_name is None else {"signal": signal_name}
    await ctx.send(_terminal_update(terminal_id, exitStatus=exit_status))
    status: Literal["completed", "failed"] = "completed" if exit_code == 0 else "failed"
    raw = {"exitCode": exit_code, "signal": signal_name, "truncated": truncated}
    await ctx.send(update_tool_call(tool_id, status=status, raw_output=raw))
    text = kept.decode("utf-8", errors="replace")
    return _reply(command, exit_code, signal_name, text, cancelled=ctx.cancelled.is_set())


async def _pump_until_done_or_cancelled(
    ctx: ToolContext, terminal_id: str, process: asyncio.subprocess.Process, kept: bytearray
) -> bool:
    """Forward output until the command ends or the turn is cancelled; whether output was cut."""
    reading = asyncio.ensure_future(_pump(ctx, terminal_id, process, kept))
    cancelled = asyncio.ensure_future(ctx.cancelled.wait())
    try:
        await asyncio.wait({reading, cancelled}, return_when=asyncio.FIRST_COMPLETED)
        if not reading.done():
            _kill(process)
        return await reading
    finally:
        for task in (reading, cancelled):
            if not task.done():
                task.cancel()


async def _pump(
    ctx: ToolContext, terminal_id: str, process: asyncio.subprocess.Process, kept: bytearray
) -> bool:
    assert process.stdout is not None
    truncated = False
    while data := await process.stdout.read(READ_SIZE):
        room = OUTPUT_BYTE_LIMIT - len(kept)
        if room <= 0:
            truncated = True
            continue  # keep draining so the command never blocks on a full pipe
        piece = data[:room]
        truncated = truncated or len(piece) < len(data)
        kept.extend(piece)
        chunk: JsonDict = {"sessionUpdate": "terminal_output_chunk", "terminalId": terminal_id}
        chunk["data"] = _b64(piece)
        await ctx.send(chunk)
    return truncated


def _kill(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)


def _exit(returncode: int | None) -> tuple[int | None, str | None]:
    if returncode is None or returncode >= 0:
        return returncode, None
    try:
        return None, signal.Signals(-returncode).name
    except ValueError:
        return None, f"signal {-returncode}"


def _terminal_update(terminal_id: str, **fields: object) -> JsonDict:
    return {"sessionUpdate": "terminal_update", "terminalId": terminal_id, **fields}


def _terminal_id() -> str:
    return f"term_{uuid.uuid4().hex[:12]}"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _reply(
    command: str, exit_code: int | None, signal_name: str | None, output: str, *, cancelled: bool
) -> str:
    if cancelled:
        how = "was stopped: the turn was cancelled"
    elif signal_name is not None:
        how = f"was ended by {code(signal_name)}"
    else:
        how = f"exited with code {exit_code}"
    tail = "\n".join(output.rstrip("\n").splitlines()[-REPLY_LINES:])
    shown = f"\n\nThe last lines:\n\n{fenced(tail, 'text')}" if tail else " It printed nothing."
    return f"I ran {code(command)} in the session's directory (shown in a terminal); it {how}.{shown}"
