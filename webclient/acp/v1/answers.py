"""ACP v1's answers to our requests: where v1 puts what `initialize` and `session/prompt` answer.

What v1 and v2 answer alike is read in `webclient/acp/answers.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webclient.acp.answers import AnswerShape, as_list, as_object, as_text, terminal_auth_method
from webclient.acp.models import AgentCapabilities, AuthMethod, AuthVar, PromptCapabilities
from webclient.agent_config import is_env_name


def auth_method(raw: Mapping[str, Any]) -> AuthMethod:
    """One `authMethods` entry; no `type` (or one we do not know) means the agent signs in itself."""
    kind = raw.get("type")
    method_id, name = raw["id"], str(raw.get("name") or raw["id"])
    description = as_text(raw.get("description"))
    if kind == "env_var":
        variables = [
            AuthVar(
                name=v["name"],
                label=as_text(v.get("label")),
                secret=v.get("secret") is not False,
                optional=v.get("optional") is True,
            )
            for v in as_list(raw.get("vars"))
            # A name that cannot be an environment variable's ("A=B") is never offered, so never saved.
            if isinstance(v, dict) and isinstance(v.get("name"), str) and is_env_name(v["name"])
        ]
        named = (v.get("name") for v in as_list(raw.get("vars")) if isinstance(v, dict))
        unusable = tuple(n for n in named if isinstance(n, str) and not is_env_name(n))
        return AuthMethod(
            id=method_id,
            name=name,
            description=description,
            kind="env_var",
            vars=tuple(variables),
            unusable_vars=unusable,
            link=as_text(raw.get("link")),
        )
    if kind == "terminal":
        return terminal_auth_method(method_id, raw)
    return AuthMethod(id=method_id, name=name, description=description)


def agent_capabilities(caps: Mapping[str, Any]) -> AgentCapabilities:
    """The v1 `agentCapabilities` object as our model.

    A capability counts when it is `true` or an object (`{}` means yes in the session capabilities and
    in v2): presence, not truthiness, so an empty object is never mistaken for "no".
    """
    prompt = as_object(caps.get("promptCapabilities"))
    session = as_object(caps.get("sessionCapabilities"))
    return AgentCapabilities(
        load_session=_granted(caps.get("loadSession")),
        list_sessions=isinstance(session.get("list"), dict),
        resume_session=isinstance(session.get("resume"), dict),
        close_session=isinstance(session.get("close"), dict),
        delete_session=isinstance(session.get("delete"), dict),
        mcp_http=as_object(caps.get("mcpCapabilities")).get("http") is True,
        prompt=PromptCapabilities(
            image=_granted(prompt.get("image")),
            audio=_granted(prompt.get("audio")),
            embedded_context=_granted(prompt.get("embeddedContext")),
        ),
    )


def stop_reason(result: Any) -> str:
    """The `stopReason` of a `session/prompt` answer (v2 ends a turn with an `idle` instead)."""
    reason = result.get("stopReason") if isinstance(result, dict) else None
    return reason if isinstance(reason, str) else "end_turn"


def _granted(value: Any) -> bool:
    return value is True or isinstance(value, dict)


V1_ANSWERS = AnswerShape(
    info="agentInfo",
    capabilities="agentCapabilities",
    read_capabilities=agent_capabilities,
    method_id="id",
    read_method=auth_method,
)
