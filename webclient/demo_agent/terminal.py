"""`run <command>` through the client's terminal (`terminal/*`), for clients that offer one.

The client runs the command, not the demo agent: it creates the terminal, streams its output into the
tool call that embeds it, and reports how it ended. A cancelled turn kills the command; the terminal is
always released. Only the user's own `run` prompt gets here, and only after the user allowed it.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any, Literal

from acp.exceptions import RequestError
from acp.helpers import update_tool_call
from acp.meta import CLIENT_METHODS
from acp.schema import TerminalToolCallContent

from .markdown import code, fenced

if TYPE_CHECKING:
    from .tool_context import ToolContext

__all__ = ["OUTPUT_BYTE_LIMIT", "run_in_terminal"]

# What the agent keeps of the output (the client keeps the tail); enough for a reply, small on the wire.
OUTPUT_BYTE_LIMIT = 64 * 1024
REPLY_LINES = 20


async def run_in_terminal(ctx: ToolContext, tool_id: str, command: str) -> str:
    """Run `command` in a client terminal shown in tool call `tool_id`; the reply text."""
    try:
        terminal_id = await _create(ctx, command)
    except RequestError as exc:
        await ctx.send(update_tool_call(tool_id, status="failed", raw_output={"error": str(exc)}))
        return f"Your client refused to run {code(command)}: {exc}"
    embed = [TerminalToolCallContent(type="terminal", terminal_id=terminal_id)]
    await ctx.send(update_tool_call(tool_id, status="in_progress", content=embed))
    try:
        ended = await _wait_or_kill(ctx, terminal_id)
        output = await _call(ctx, "terminal_output", terminal_id)
    finally:
        with contextlib.suppress(RequestError, ConnectionError):
            await _call(ctx, "terminal_release", terminal_id)
    printed = output.get("output")
    text = printed if isinstance(printed, str) else ""
    exit_code, signal = ended.get("exitCode"), ended.get("signal")
    raw = {"exitCode": exit_code, "signal": signal, "truncated": output.get("truncated") is True}
    status: Literal["completed", "failed"] = "completed" if exit_code == 0 else "failed"
    await ctx.send(update_tool_call(tool_id, status=status, raw_output=raw))
    return _reply(command, exit_code, signal, text, cancelled=ctx.cancelled.is_set())


async def _create(ctx: ToolContext, command: str) -> str:
    # `sh -c` explicitly: ACP does not say whether a client runs `command` through a shell.
    params = {
        "sessionId": ctx.session_id,
        "command": "sh",
        "args": ["-c", command],
        "cwd": str(ctx.workspace.root),
        "outputByteLimit": OUTPUT_BYTE_LIMIT,
    }
    result = await ctx.channel.request(CLIENT_METHODS["terminal_create"], params)
    terminal_id = result.get("terminalId") if isinstance(result, dict) else None
    if not isinstance(terminal_id, str):
        raise RequestError.internal_error({"reason": "the client's terminal/create answer has no terminalId"})
    return terminal_id


async def _wait_or_kill(ctx: ToolContext, terminal_id: str) -> dict[str, Any]:
    """How the command ended; a cancelled turn kills it first."""
    waiting = asyncio.ensure_future(_call(ctx, "terminal_wait_for_exit", terminal_id))
    cancelled = asyncio.ensure_future(ctx.cancelled.wait())
    try:
        await asyncio.wait({waiting, cancelled}, return_when=asyncio.FIRST_COMPLETED)
        if not waiting.done():
            await _call(ctx, "terminal_kill", terminal_id)
        return await waiting
    finally:
        cancelled.cancel()


async def _call(ctx: ToolContext, method: str, terminal_id: str) -> dict[str, Any]:
    params = {"sessionId": ctx.session_id, "terminalId": terminal_id}
    result = await ctx.channel.request(CLIENT_METHODS[method], params)
    return result if isinstance(result, dict) else {}


def _reply(command: str, exit_code: Any, signal: Any, output: str, *, cancelled: bool) -> str:
    if cancelled:
        how = "was stopped: the turn was cancelled"
    elif isinstance(signal, str):
        how = f"was ended by {code(signal)}"
    else:
        how = f"exited with code {exit_code}"
    tail = "\n".join(output.rstrip("\n").splitlines()[-REPLY_LINES:])
    shown = f"\n\nThe last lines:\n\n{fenced(tail, 'text')}" if tail else " It printed nothing."
    return f"Your client ran {code(command)} in a terminal; it {how}.{shown}"
