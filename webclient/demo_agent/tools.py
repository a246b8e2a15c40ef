"""Turns that use tools: edit (plan, read, diff, permission, write), run, search, and switching modes.

Each sends its ``tool_call`` / ``tool_call_update`` / ``plan`` updates and client requests as it goes and
returns the Markdown the agent says at the end. ``run tests`` is pretend; ``run <command>`` asks the user,
then (v1) runs it in the client's terminal when the client offers one (``terminal.py``) or pretends, or
(v2, no client terminals) runs it itself into a display terminal (``display_terminal.py``). Updates are
built v1-shaped; on a v2 connection the channel reshapes them (``dialect_v2.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from pathlib import Path
from typing import Any

from acp.exceptions import RequestError
from acp.helpers import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_plan,
    update_tool_call,
)
from acp.meta import CLIENT_METHODS
from acp.schema import FileEditToolCallContent, PermissionOption, PlanEntryStatus, ToolCallLocation

from .blocks import JsonDict, to_json
from .display_terminal import run_in_display_terminal, show_in_display_terminal
from .features import ClientFeatures
from .intents import Intent, Kind
from .markdown import code, fenced
from .modes import MODES
from .terminal import run_in_terminal
from .tool_context import ToolContext, json_of
from .updates import current_mode
from .workspace import Workspace, WorkspaceError, is_listed

__all__ = ["REVIEW_LINE", "TOOL_KINDS", "ToolContext", "run_tool", "thought_for"]

REVIEW_LINE = "# reviewed by the demo agent"
EDIT_LIMIT_BYTES = 1_000_000
SEARCH_FILE_LIMIT_BYTES = 1_000_000
MAX_MATCHES = 50
# How long the client gets to answer a pending permission request `cancelled` after session/cancel.
CANCEL_GRACE_S = 2.0
DEFAULT_RUN_COMMAND = "pytest -q"

PERMISSION_OPTIONS = (
    PermissionOption(option_id="apply", name="Apply edit", kind="allow_once"),
    PermissionOption(option_id="always", name="Always allow edits", kind="allow_always"),
    PermissionOption(option_id="skip", name="Skip", kind="reject_once"),
)
_ALLOWING = frozenset({"apply", "always"})
RUN_OPTIONS = (
    PermissionOption(option_id="run", name="Run it", kind="allow_once"),
    PermissionOption(option_id="skip", name="Don't run", kind="reject_once"),
)
TOOL_KINDS = frozenset({Kind.EDIT, Kind.RUN, Kind.SEARCH, Kind.MODE})


def thought_for(intent: Intent) -> str:
    return {
        Kind.EDIT: f"I'll plan the edit, read {code(intent.argument or '?')}, propose a diff and ask first.",
        Kind.RUN: f"Running {code(intent.argument or 'tests')}.",
        Kind.SEARCH: f"Searching the workspace for {code(intent.argument)}.",
        Kind.MODE: f"Switching to mode {code(intent.argument or '?')}.",
    }[intent.kind]


async def run_tool(intent: Intent, ctx: ToolContext) -> str:
    """Carry out an EDIT, RUN, SEARCH or MODE intent; returns the reply text."""
    match intent.kind:
        case Kind.EDIT:
            return await _edit(ctx, intent.argument)
        case Kind.RUN:
            return await _run(ctx, intent.argument)
        case Kind.SEARCH:
            return await _search(ctx, intent.argument)
        case _:
            return await _switch_mode(ctx, intent.argument)


# --- edit ------------------------------------------------------------------------------------------------


async def _edit(ctx: ToolContext, reference: str) -> str:
    if not reference:
        return f"Which file? Name it, for example {code('edit README.md')}."
    try:
        path = ctx.workspace.resolve(reference)
        if not path.is_file():
            raise WorkspaceError(f"There is no file {code(reference)} in the workspace.")
    except WorkspaceError as refusal:
        return str(refusal)
    name = ctx.workspace.relative(path)
    steps = (f"Read {name}", f"Propose an edit to {name}", f"Apply the edit to {name}")

    await _plan(ctx, steps, "in_progress", "pending", "pending")
    old_text, read_via = await _read_step(ctx, path, name)
    if old_text is None:
        return read_via
    await _plan(ctx, steps, "completed", "in_progress", "pending")

    new_text = old_text + ("" if not old_text or old_text.endswith("\n") else "\n") + REVIEW_LINE + "\n"
    edit_id = _tool_id("edit")
    title = f"Append a review comment to {name}"
    diff = tool_diff_content(str(path), new_text, old_text)
    where = [ToolCallLocation(path=str(path), line=old_text.count("\n") + 1)]
    raw_input = {"path": str(path), "append": REVIEW_LINE}
    await ctx.send(
        start_tool_call(
            edit_id,
            title,
            kind="edit",
            status="pending",
            content=[diff],
            locations=where,
            raw_input=raw_input,
        )
    )
    await _plan(ctx, steps, "completed", "completed", "in_progress")

    choice = await _permission(ctx, edit_id, title, diff, where)
    if choice is None or choice not in _ALLOWING:
        reason = "cancelled" if choice is None else "rejected"
        await ctx.send(
            update_tool_call(edit_id, status="failed", raw_output={"written": False, "reason": reason})
        )
        await _plan(ctx, steps, "completed", "completed", "pending")
        if choice is None:
            return f"Stopped before the edit: {code(name)} is unchanged."
        if choice == "skip":
            return f"No problem: I left {code(name)} unchanged."
        return f"Nothing changed: the answer {code(choice)} is not a yes, so {code(name)} is unchanged."
    if choice == "always":
        ctx.live.always_allow_edits = True

    await ctx.send(update_tool_call(edit_id, status="in_progress"))
    try:
        via = await _write(ctx, path, new_text)
    except (RequestError, OSError) as exc:
        await ctx.send(
            update_tool_call(edit_id, status="failed", raw_output={"written": False, "error": str(exc)})
        )
        return f"I could not save {code(name)}: {exc}"
    raw_output = {"written": True, "via": via, "bytes": len(new_text.encode("utf-8"))}
    await ctx.send(update_tool_call(edit_id, status="completed", raw_output=raw_output))
    await _plan(ctx, steps, "completed", "completed", "completed")
    return (
        f"Done: {code(name)} now ends with {code(REVIEW_LINE)}. {_access_note(read_via, via, ctx.features)}"
    )


async def _read_step(ctx: ToolContext, path: Path, name: str) -> tuple[str | None, str]:
    """Read the file in a ``read`` tool call: (its text, "client" or "agent") or (None, why it failed)."""
    read_id = _tool_id("read")
    await ctx.send(
        start_tool_call(
            read_id,
            f"Read {name}",
            kind="read",
            status="in_progress",
            locations=[ToolCallLocation(path=str(path), line=1)],
            raw_input={"path": str(path), "line": 1},
        )
    )
    try:
        if ctx.features.read_text_file:
            result = await ctx.channel.request(
                CLIENT_METHODS["fs_read_text_file"],
                {"sessionId": ctx.session_id, "path": str(path), "line": 1},
            )
            text, via = _content_of(result), "client"
        else:
            content = ctx.workspace.read_text(str(path), EDIT_LIMIT_BYTES)
            if content.truncated:
                raise WorkspaceError(f"{code(name)} is too big for me to edit.")
            text, via = content.text, "agent"
    except (RequestError, WorkspaceError, ValueError) as exc:
        await ctx.send(update_tool_call(read_id, status="failed", raw_output={"error": str(exc)}))
        return None, f"I could not read {code(name)}: {exc}"
    lines = len(text.splitlines())
    summary = f"Read {lines} line{'s' if lines != 1 else ''} of {name}"
    await ctx.send(
        update_tool_call(
            read_id,
            status="completed",
            content=[tool_content(text_block(summary))],
            raw_output={"lines": lines, "via": via},
        )
    )
    return text, via


def _access_note(read_via: str, write_via: str, features: ClientFeatures) -> str:
    """One sentence on how the file was read and written: through the client, or directly, and why."""
    if read_via == write_via == "client":
        return "I read and saved it through your client (`fs/read_text_file`, `fs/write_text_file`)."
    if features.protocol >= 2:
        return "In ACP v2 the agent works on files itself, so I read and saved it in the workspace directly."
    missing = [
        f"`fs.{capability}`"
        for capability, via in (("readTextFile", read_via), ("writeTextFile", write_via))
        if via == "agent"
    ]
    return f"Your client did not advertise {' or '.join(missing)}, so I worked on the file directly."


def _content_of(result: Any) -> str:
    content = result.get("content") if isinstance(result, dict) else None
    if not isinstance(content, str):
        raise ValueError("the client's fs/read_text_file answer has no text content")
    return content


async def _write(ctx: ToolContext, path: Path, new_text: str) -> str:
    if ctx.features.write_text_file:
        params = {"sessionId": ctx.session_id, "path": str(path), "content": new_text}
        await ctx.channel.request(CLIENT_METHODS["fs_write_text_file"], params)
        return "client"
    path.write_text(new_text, encoding="utf-8")
    return "agent"


async def _permission(
    ctx: ToolContext, tool_id: str, title: str, diff: FileEditToolCallContent, where: list[ToolCallLocation]
) -> str | None:
    """The chosen optionId, or None when the turn was cancelled; anything malformed counts as a refusal."""
    if ctx.live.always_allow_edits:
        return "always"
    tool_call = json_of(
        update_tool_call(tool_id, title=title, kind="edit", status="pending", content=[diff], locations=where)
    )
    return await _ask(ctx, tool_call, PERMISSION_OPTIONS)


async def _ask(ctx: ToolContext, tool_call: JsonDict, options: tuple[PermissionOption, ...]) -> str | None:
    """Ask the client's permission for `tool_call`: the chosen optionId, or None when the turn was
    cancelled; anything malformed counts as a refusal."""
    tool_call.pop("sessionUpdate", None)
    params = {
        "sessionId": ctx.session_id,
        "toolCall": tool_call,
        "options": [to_json(option) for option in options],
    }
    request = asyncio.ensure_future(ctx.channel.request(CLIENT_METHODS["session_request_permission"], params))
    cancelled = asyncio.ensure_future(ctx.cancelled.wait())
    try:
        await asyncio.wait({request, cancelled}, return_when=asyncio.FIRST_COMPLETED)
        if not request.done():
            # The client must now answer `cancelled`; give it a moment, then stop waiting either way.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(CANCEL_GRACE_S):
                    await asyncio.wait({request})
        if ctx.cancelled.is_set() or not request.done():
            return None
        try:
            result = request.result()
        except RequestError:
            return "error"
    finally:
        for task in (request, cancelled):
            if not task.done():
                task.cancel()
    outcome = result.get("outcome") if isinstance(result, dict) else None
    if not isinstance(outcome, dict) or outcome.get("outcome") == "cancelled":
        return None if isinstance(outcome, dict) else "malformed"
    option_id = outcome.get("optionId")
    return option_id if outcome.get("outcome") == "selected" and isinstance(option_id, str) else "malformed"


async def _plan(ctx: ToolContext, steps: tuple[str, ...], *statuses: PlanEntryStatus) -> None:
    priorities = ("high", "medium", "low")
    entries = [
        plan_entry(step, priority=priority, status=status)  # type: ignore[arg-type]
        for step, priority, status in zip(steps, priorities, statuses, strict=True)
    ]
    await ctx.send(update_plan(entries))


# --- run -------------------------------------------------------------------------------------------------


async def _run(ctx: ToolContext, command: str) -> str:
    command = command.strip()
    if not command or command.lower() in ("tests", "the tests", "test"):
        command = DEFAULT_RUN_COMMAND
    elif ctx.features.terminal or ctx.features.agent_terminal:
        return await _run_for_real(ctx, command)
    tool_id = _tool_id("run")
    await ctx.send(
        start_tool_call(
            tool_id, f"Run {command}", kind="execute", status="pending", raw_input={"command": command}
        )
    )
    await ctx.send(update_tool_call(tool_id, status="in_progress"))
    output = _pretend_output(command)
    if ctx.features.agent_terminal:
        await show_in_display_terminal(ctx, tool_id, command, output)
    else:
        await ctx.send(
            update_tool_call(
                tool_id,
                status="completed",
                content=[tool_content(text_block(fenced(output, "text")))],
                raw_output={"exitCode": 0, "stdout": output},
            )
        )
    return (
        f"{code(command)} finished with exit code 0. This was a simulated run: the demo agent only runs a "
        "command you name and allow, with `run COMMAND`.\n\n" + fenced(output, "text")
    )


async def _run_for_real(ctx: ToolContext, command: str) -> str:
    """Ask first, then run `command` in the client's terminal."""
    tool_id = _tool_id("run")
    title = f"Run {command}"
    await ctx.send(
        start_tool_call(tool_id, title, kind="execute", status="pending", raw_input={"command": command})
    )
    tool_call = json_of(update_tool_call(tool_id, title=title, kind="execute", status="pending"))
    tool_call["rawInput"] = {"command": command}
    choice = await _ask(ctx, tool_call, RUN_OPTIONS)
    if choice != "run":
        await ctx.send(update_tool_call(tool_id, status="failed", raw_output={"ran": False}))
        if choice is None:
            return f"The turn was cancelled while I waited for permission; {code(command)} did not run."
        return f"You chose not to run {code(command)}."
    if ctx.features.agent_terminal:
        return await run_in_display_terminal(ctx, tool_id, command)
    return await run_in_terminal(ctx, tool_id, command)


def _pretend_output(command: str) -> str:
    if "test" in command.lower():
        return "collected 3 items\n\ntests/test_demo.py ...  [100%]\n\n3 passed in 0.01s\n"
    return f"$ {command}\n(simulated output: the demo agent does not run this command)\n"


# --- search ----------------------------------------------------------------------------------------------


async def _search(ctx: ToolContext, word: str) -> str:
    word = word.strip()
    if not word:
        return f"Search for what? Try {code('search main')}."
    tool_id = _tool_id("search")
    await ctx.send(
        start_tool_call(
            tool_id, f"Search for {word}", kind="search", status="in_progress", raw_input={"query": word}
        )
    )
    matches = _find(ctx.workspace, word)
    files = len({path for path, _, _ in matches})
    summary = (
        f"{len(matches)} match{'es' if len(matches) != 1 else ''} in {files} file{'s' if files != 1 else ''}"
    )
    await ctx.send(
        update_tool_call(
            tool_id,
            status="completed",
            locations=[ToolCallLocation(path=str(path), line=line) for path, line, _ in matches],
            content=[tool_content(text_block(summary))],
            raw_output={"matches": len(matches), "files": files},
        )
    )
    if not matches:
        return f"No matches for {code(word)} in the workspace."
    listing = "\n".join(
        f"- {code(f'{ctx.workspace.relative(path)}:{line}')}: {code(snippet)}"
        for path, line, snippet in matches
    )
    return f"Found {summary} for {code(word)}:\n\n{listing}"


def _find(workspace: Workspace, word: str) -> list[tuple[Path, int, str]]:
    """Case-insensitive matches in the workspace's visible text files, in path order, capped."""
    needle = word.casefold()
    matches: list[tuple[Path, int, str]] = []
    for directory, dirs, names in os.walk(workspace.root):
        dirs[:] = sorted(d for d in dirs if is_listed(d))
        for name in sorted(n for n in names if is_listed(n)):
            try:
                path = workspace.resolve(str(Path(directory) / name))
                data = path.read_bytes() if path.stat().st_size <= SEARCH_FILE_LIMIT_BYTES else b"\0"
                text = data.decode("utf-8") if b"\0" not in data else ""
            except (WorkspaceError, OSError, UnicodeDecodeError):
                continue
            for number, line in enumerate(text.splitlines(), start=1):
                if needle in line.casefold():
                    matches.append((path, number, line.strip()[:120]))
                    if len(matches) >= MAX_MATCHES:
                        return matches
    return matches


# --- modes -----------------------------------------------------------------------------------------------


async def _switch_mode(ctx: ToolContext, mode_id: str) -> str:
    mode = next((m for m in MODES if m.id == mode_id.strip().lower()), None)
    if mode is None:
        names = ", ".join(code(m.id) for m in MODES)
        current = f"The current mode is {code(ctx.live.settings.mode)}. "
        unknown = f"There is no mode {code(mode_id)}. " if mode_id.strip() else ""
        return f"{unknown}{current}Switch with `/mode NAME`, one of {names}."
    ctx.live.settings.set_mode(mode.id)
    await ctx.send(current_mode(mode.id))
    return f"Switched to **{mode.name}** mode: {mode.description}."


def _tool_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:12]}"
