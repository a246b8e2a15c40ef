"""ACP v2's answers and requests: where v2 puts what `initialize` and the session requests answer, and
its permission requests. What v1 and v2 answer alike is read in `webclient/acp/answers.py`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from webclient.acp.answers import (
    AnswerShape,
    agent_info,
    as_list,
    as_object,
    as_text,
    opened_session,
    terminal_auth_method,
)
from webclient.acp.models import (
    AgentCapabilities,
    AgentInfo,
    AuthMethod,
    OpenedSession,
    PermissionOption,
    PermissionRequest,
    PromptCapabilities,
    ToolCallEvent,
)
from webclient.acp.v2.translate import commands_v2, config_options_v2, tool_call_patch


def agent_info_v2(result: Any) -> AgentInfo:
    """A v2 `initialize` result (`info`, `capabilities`, `authMethods[].methodId`) as our model."""
    return agent_info(result, V2_ANSWERS)


def agent_capabilities_v2(caps: Mapping[str, Any]) -> AgentCapabilities:
    """v2 capabilities: markers are objects (presence, never truthiness: `{}` means yes); a present
    `session` group means the baseline methods new, list, resume (with replay: our load) and close."""
    session = caps.get("session")
    if not isinstance(session, dict):
        return AgentCapabilities()
    prompt = as_object(session.get("prompt"))
    return AgentCapabilities(
        load_session=True,
        list_sessions=True,
        resume_session=True,
        close_session=True,
        delete_session=isinstance(session.get("delete"), dict),
        mcp_http=isinstance(as_object(session.get("mcp")).get("http"), dict),
        prompt=PromptCapabilities(
            image=isinstance(prompt.get("image"), dict),
            audio=isinstance(prompt.get("audio"), dict),
            embedded_context=isinstance(prompt.get("embeddedContext"), dict),
        ),
    )


def auth_method_v2(raw: Mapping[str, Any]) -> AuthMethod | None:
    """One v2 `authMethods` entry: `agent` (we call `auth/login`) or `terminal`; None for a type this
    client cannot use (it is listed nowhere rather than offered and failing)."""
    kind = raw.get("type")
    method_id = raw["methodId"]
    name = str(raw.get("name") or method_id)
    description = as_text(raw.get("description"))
    if kind == "agent":
        return AuthMethod(id=method_id, name=name, description=description)
    if kind == "terminal":
        return terminal_auth_method(method_id, raw)
    return None


def permission_request_v2(params: Any) -> PermissionRequest | None:
    """A v2 `session/request_permission` (`title`, `description`, `subject`, `options`) as our model.

    A `tool_call` subject is a patch of that tool call, applied to its card; a `command` subject (or
    none, or one we do not know) only describes what the agent wants, under the request's own title.
    """
    if not isinstance(params, dict) or not isinstance(params.get("sessionId"), str):
        return None
    options = tuple(
        PermissionOption(
            id=o["optionId"], name=str(o.get("name") or o["optionId"]), kind=as_text(o.get("kind"))
        )
        for o in as_list(params.get("options"))
        if isinstance(o, dict) and isinstance(o.get("optionId"), str)
    )
    if not options:
        return None
    question = as_text(params.get("title")) or "The agent asks for permission"
    subject = as_object(params.get("subject"))
    tool, updates_card = _permission_subject(subject)
    return PermissionRequest(
        session_id=params["sessionId"],
        tool_call=tool,
        options=options,
        question=question,
        description=as_text(params.get("description")),
        updates_card=updates_card,
    )


def _permission_subject(subject: dict[str, Any]) -> tuple[ToolCallEvent, bool]:
    if subject.get("type") == "tool_call" and isinstance(subject.get("toolCall"), dict):
        with contextlib.suppress(ValueError, TypeError, KeyError):
            return tool_call_patch(subject["toolCall"]), True
    if subject.get("type") == "command" and isinstance(subject.get("command"), str):
        tool_call_id = as_text(subject.get("toolCallId")) or "command"
        raw = {"command": subject["command"], "cwd": as_text(subject.get("cwd"))}
        return ToolCallEvent(tool_call_id=tool_call_id, is_update=True, kind="execute", raw_input=raw), False
    return ToolCallEvent(tool_call_id="permission", is_update=True, raw_input=subject or None), False


def opened_v2(session_id: str, result: Any) -> OpenedSession:
    """A v2 new or resume answer: config options with a `type`, no modes, and the commands the session
    starts with (the current draft lists them here; an `available_commands_update` may follow)."""
    opened = opened_session(session_id, result, config_options_v2, with_modes=False)
    if isinstance(raw := as_object(result).get("availableCommands"), list):
        return opened.model_copy(update={"commands": commands_v2(raw)})
    return opened


V2_ANSWERS = AnswerShape(
    info="info",
    capabilities="capabilities",
    read_capabilities=agent_capabilities_v2,
    method_id="methodId",
    read_method=auth_method_v2,
)
