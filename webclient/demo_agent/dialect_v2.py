"""ACP v2 wire shapes: the core's (v1-shaped) updates and requests translated, and v2's own payloads.

The shared core builds every update as v1 spells it (``updates.py``, the SDK helpers in ``tools.py``).
On a v2 connection each one passes through ``translate_update`` on its way out, so the turn logic stays
written once. Pure functions over JSON dicts; the per-session facts a translation needs come from a
``V2View`` (the session's settings for the mode option, its workspace for patch paths, its plan id).
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any, Protocol

from . import __version__
from .blocks import JsonDict, to_json
from .modes import MODES, SessionSettings
from .workspace import Workspace

__all__ = [
    "MODE_CONFIG_ID",
    "PROTOCOL_VERSION_2",
    "V2View",
    "agent_message",
    "config_options",
    "git_patch",
    "initialize_result",
    "permission_request",
    "state_update",
    "translate_update",
    "user_message",
]

PROTOCOL_VERSION_2 = 2
MODE_CONFIG_ID = "mode"
_DESCRIPTIONS = {
    "edit": "The demo agent wants to write this change to the file.",
    "execute": "The demo agent wants to run this command in the session's directory.",
}


class V2View(Protocol):
    """What translating one session's updates needs to know about that session."""

    @property
    def settings(self) -> SessionSettings: ...

    @property
    def workspace(self) -> Workspace: ...

    @property
    def plan_id(self) -> str: ...

    @property
    def tools_with_content(self) -> set[str]:
        """Tool calls that have content on the client already; translation keeps it up to date."""
        ...


def initialize_result() -> JsonDict:
    """The v2 ``initialize`` result: baseline sessions plus delete, image and embedded-context prompts.

    ``mcp: {}`` advertises no MCP transport: the demo agent accepts ``mcpServers`` and connects to none.
    """
    return {
        "protocolVersion": PROTOCOL_VERSION_2,
        "info": {"name": "webclient-demo", "title": "webclient demo agent", "version": __version__},
        "capabilities": {
            "session": {"prompt": {"image": {}, "embeddedContext": {}}, "mcp": {}, "delete": {}},
        },
        "authMethods": [],
    }


def config_options(settings: SessionSettings) -> list[JsonDict]:
    """The full v2 ``configOptions``: the mode (v1's session modes) first, then the v1 options renamed."""
    mode: JsonDict = {
        "configId": MODE_CONFIG_ID,
        "name": "Mode",
        "description": "How the demo agent works",
        "category": "mode",
        "type": "select",
        "currentValue": settings.mode,
        "options": [
            {"value": m.id, "name": m.name, **({"description": m.description} if m.description else {})}
            for m in MODES
        ],
    }
    options = [mode]
    for option in settings.config_options():
        shaped = to_json(option)
        shaped["configId"] = shaped.pop("id")
        options.append(shaped)
    return options


def state_update(state: str, stop_reason: str | None = None) -> JsonDict:
    update: JsonDict = {"sessionUpdate": "state_update", "state": state}
    if stop_reason is not None:
        update["stopReason"] = stop_reason
    return update


def user_message(message_id: str, content: list[Any]) -> JsonDict:
    return {"sessionUpdate": "user_message", "messageId": message_id, "content": content}


def agent_message(message_id: str, content: list[Any]) -> JsonDict:
    return {"sessionUpdate": "agent_message", "messageId": message_id, "content": content}


def translate_update(update: JsonDict, view: V2View) -> list[JsonDict]:
    """One core update as the v2 updates that say the same; kinds alike in both versions pass unchanged."""
    match update.get("sessionUpdate"):
        case "tool_call" | "tool_call_update":
            return _tool_call_updates(update, view)
        case "plan":
            plan = {"type": "items", "planId": view.plan_id, "entries": update.get("entries", [])}
            return [{"sessionUpdate": "plan_update", "plan": plan}]
        case "current_mode_update" | "config_option_update":
            return [{"sessionUpdate": "config_option_update", "configOptions": config_options(view.settings)}]
        case "available_commands_update":
            commands = [_command(command) for command in update.get("availableCommands", [])]
            return [{"sessionUpdate": "available_commands_update", "availableCommands": commands}]
        case _:
            return [update]


def _tool_call_updates(update: JsonDict, view: V2View) -> list[JsonDict]:
    """A v1 ``tool_call`` (create) or ``tool_call_update`` (patch) as v2 ``tool_call_update``s.

    Content that a patch gives a tool call without content yet goes out as ``tool_call_content_chunk``s
    (append) before the rest of the patch; content replacing existing content stays in it (replace).
    """
    shaped = {**_tool_call(update, view), "sessionUpdate": "tool_call_update"}
    tool_id = str(shaped.get("toolCallId"))
    content = shaped.get("content")
    if not isinstance(content, list) or not content:
        return [shaped]
    creating = update.get("sessionUpdate") == "tool_call"
    if creating or tool_id in view.tools_with_content:
        view.tools_with_content.add(tool_id)
        return [shaped]
    view.tools_with_content.add(tool_id)
    del shaped["content"]
    chunks = [
        {"sessionUpdate": "tool_call_content_chunk", "toolCallId": tool_id, "content": item}
        for item in content
    ]
    return [*chunks, shaped]


def permission_request(params: JsonDict, view: V2View) -> JsonDict:
    """v1 ``session/request_permission`` params as v2: a title, a description and a tool-call subject."""
    tool_call = _tool_call(params.get("toolCall") or {}, view)
    request: JsonDict = {
        "sessionId": params["sessionId"],
        "title": str(tool_call.get("title") or "Allow this tool call?"),
        "subject": {"type": "tool_call", "toolCall": tool_call},
        "options": params.get("options", []),
    }
    if description := _DESCRIPTIONS.get(str(tool_call.get("kind"))):
        request["description"] = description
    return request


def git_patch(path: str, old_text: str | None, new_text: str, root: Path) -> str:
    """A ``git diff`` style patch for one text file, its paths relative to the session directory."""
    name = _patch_name(Path(path), root)
    old_lines = (old_text or "").splitlines(keepends=True)
    new_lines = new_text.splitlines(keepends=True)
    header = [f"diff --git a/{name} b/{name}\n"]
    if old_text is None:
        header.append("new file mode 100644\n")
    source = "/dev/null" if old_text is None else f"a/{name}"
    lines = difflib.unified_diff(old_lines, new_lines, fromfile=source, tofile=f"b/{name}")
    return "".join(header) + "".join(_terminated(line) for line in lines)


def _tool_call(update: JsonDict, view: V2View) -> JsonDict:
    shaped = {key: value for key, value in update.items() if key != "sessionUpdate"}
    if isinstance(shaped.get("content"), list):
        shaped["content"] = [_tool_content(item, view) for item in shaped["content"]]
    return shaped


def _tool_content(item: Any, view: V2View) -> Any:
    """v1 diff content (``path``, ``oldText``, ``newText``) as a v2 diff: ``changes`` plus a git patch."""
    if not isinstance(item, dict) or item.get("type") != "diff" or "changes" in item:
        return item
    path, old_text, new_text = str(item.get("path")), item.get("oldText"), str(item.get("newText", ""))
    operation = "add" if old_text is None else "modify"
    return {
        "type": "diff",
        "changes": [{"operation": operation, "path": path, "fileType": "text"}],
        "patch": {"format": "git_patch", "text": git_patch(path, old_text, new_text, view.workspace.root)},
    }


def _command(command: Any) -> Any:
    """v1's untagged command input ``{"hint"}`` becomes v2's ``{"type": "text", "hint"}``."""
    if not isinstance(command, dict) or not isinstance(command.get("input"), dict):
        return command
    return {**command, "input": {"type": "text", **command["input"]}}


def _patch_name(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else path.as_posix().lstrip("/")


def _terminated(line: str) -> str:
    return line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
