"""The agent's answers to our requests, read once for both ACP versions.

What v1 and v2 answer alike is read here; where their shapes differ, the caller says how (`AnswerShape`
for `initialize`, the config-option reader for the session answers). Malformed answers never raise
unless there is nothing to go on (no session id); then it is an `AgentRequestError`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from webclient.acp.controls import ConfigOption, modes_from_wire
from webclient.acp.models import AgentCapabilities, AgentInfo, AuthMethod, OpenedSession, StoredSessionInfo
from webclient.errors import AgentRequestError

# The JSON-RPC error code with which an agent says that it wants a sign-in first (v1 and v2).
AUTH_REQUIRED = -32000
INTERNAL_ERROR = -32603

# Reads a `configOptions` list (v1 and v2 name an option's id differently).
ConfigOptionsReader = Callable[[Any], tuple[ConfigOption, ...]]


@dataclass(frozen=True)
class AnswerShape:
    """Where one ACP version puts what `initialize` answers about the agent."""

    info: str  # the key of the agent's name, title and version
    capabilities: str  # the key of its capabilities
    read_capabilities: Callable[[Mapping[str, Any]], AgentCapabilities]
    method_id: str  # the key of a sign-in method's id
    read_method: Callable[[Mapping[str, Any]], AuthMethod | None]


def agent_info(result: Any, shape: AnswerShape) -> AgentInfo:
    """An `initialize` answer as our model; AgentRequestError when it is not an object."""
    if not isinstance(result, dict):
        raise AgentRequestError("initialize", INTERNAL_ERROR, "the agent's answer is not an object")
    info = as_object(result.get(shape.info))
    methods = (
        shape.read_method(raw)
        for raw in as_list(result.get("authMethods"))
        if isinstance(raw, dict) and isinstance(raw.get(shape.method_id), str)
    )
    version = result.get("protocolVersion")
    return AgentInfo(
        protocol_version=version if isinstance(version, int) else 0,
        name=str(info.get("name") or "agent"),
        title=as_text(info.get("title")),
        version=as_text(info.get("version")),
        capabilities=shape.read_capabilities(as_object(result.get(shape.capabilities))),
        auth_methods=tuple(method for method in methods if method is not None),
    )


def terminal_auth_method(method_id: str, raw: Mapping[str, Any]) -> AuthMethod:
    """A `terminal` sign-in method (the same in v1 and v2): the user runs the agent with `args` and `env`."""
    args = tuple(a for a in as_list(raw.get("args")) if isinstance(a, str))
    # Every name as the agent gave it: the page quotes each in the command it shows, marks the odd ones
    # ("$(curl …)", a right-to-left override) and leaves out and names those no variable can have.
    env = tuple((k, v) for k, v in as_object(raw.get("env")).items() if isinstance(v, str))
    return AuthMethod(
        id=method_id,
        name=str(raw.get("name") or method_id),
        description=as_text(raw.get("description")),
        kind="terminal",
        args=args,
        env=env,
    )


def new_session_id(result: Any) -> str:
    """The `sessionId` a `session/new` answer names; AgentRequestError when it names none."""
    session_id = result.get("sessionId") if isinstance(result, dict) else None
    if not isinstance(session_id, str):
        raise AgentRequestError("session/new", INTERNAL_ERROR, "the agent's answer has no sessionId")
    return session_id


def opened_session(
    session_id: str, result: Any, read_options: ConfigOptionsReader, *, with_modes: bool
) -> OpenedSession:
    """A new, load or resume answer (a load or resume may answer null) as our model; `with_modes`
    False for a version without session modes (v2)."""
    fields = as_object(result)
    modes, current = modes_from_wire(fields.get("modes")) if with_modes else ((), None)
    options = read_options(fields.get("configOptions"))
    return OpenedSession(session_id=session_id, modes=modes, current_mode_id=current, config_options=options)


def answered_options(result: Any, read_options: ConfigOptionsReader) -> tuple[ConfigOption, ...] | None:
    """The config options a `session/set_config_option` answer lists, or None when it lists none."""
    if isinstance(result, dict) and isinstance(result.get("configOptions"), list):
        return read_options(result["configOptions"])
    return None


def stored_sessions(result: Any) -> tuple[StoredSessionInfo, ...]:
    """A `session/list` answer (the same in v1 and v2); malformed entries are left out."""
    entries = result.get("sessions") if isinstance(result, dict) else None
    return tuple(info for raw in as_list(entries) if (info := stored_session(raw)) is not None)


def stored_session(raw: Any) -> StoredSessionInfo | None:
    """One `session/list` entry; None when it is not one."""
    if not isinstance(raw, dict) or not isinstance(raw.get("sessionId"), str):
        return None
    return StoredSessionInfo(
        session_id=raw["sessionId"], title=as_text(raw.get("title")), updated_at=as_text(raw.get("updatedAt"))
    )


def as_text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def as_object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """`value` if it is a list, else none: a field the agent sent as another type reads as empty."""
    return value if isinstance(value, list) else []
