"""What the agent said about itself, and the answers to our session requests."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from webclient.acp.controls import ConfigOption, Mode
from webclient.acp.models.base import Model
from webclient.acp.models.events import Command


class AgentStatus(StrEnum):
    """The lifecycle of the agent process, as the page shows it."""

    STARTING = "starting"
    AUTH_REQUIRED = "auth-required"
    READY = "ready"
    WORKING = "working"
    # A remote agent's connection was lost; webclient connects again (with a growing pause between tries).
    RECONNECTING = "reconnecting"
    EXITED = "exited"


class AuthVar(Model):
    """A variable an `env_var` sign-in method asks for."""

    name: str
    label: str | None = None
    secret: bool = True
    optional: bool = False


class AuthMethod(Model):
    """One way to sign in: `agent` (we call `authenticate`), `env_var` (we restart the agent with the
    variables set) or `terminal` (the user runs the agent's command with `args` and `env` themselves)."""

    id: str
    name: str
    description: str | None = None
    kind: Literal["agent", "env_var", "terminal"] = "agent"
    vars: tuple[AuthVar, ...] = ()
    # Names an `env_var` method asks for that no variable can have (`A=B`): never offered, only named.
    unusable_vars: tuple[str, ...] = ()
    link: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()


class PromptCapabilities(Model):
    """Which content block types beyond text and resource links the agent accepts in a prompt."""

    image: bool = False
    audio: bool = False
    embedded_context: bool = False

    def allows(self, block_kind: str) -> bool:
        """Whether a block of this kind (a `ContentPart.kind`) may go to the agent in a prompt."""
        if block_kind in ("text", "resource_link"):
            return True
        flag = {"image": self.image, "audio": self.audio, "resource": self.embedded_context}
        return flag.get(block_kind, False)


class AgentCapabilities(Model):
    """The agent's `agentCapabilities`, reduced to what this client acts on."""

    load_session: bool = False
    list_sessions: bool = False
    resume_session: bool = False
    close_session: bool = False
    mcp_http: bool = False  # mcpCapabilities.http: MCP servers reached over HTTP (stdio ones always work)
    delete_session: bool = False  # v2 `session.delete`: a stored session can be deleted
    prompt: PromptCapabilities = PromptCapabilities()


class AgentInfo(Model):
    """What the agent said about itself in its `initialize` response."""

    protocol_version: int
    name: str
    title: str | None = None
    version: str | None = None
    capabilities: AgentCapabilities = AgentCapabilities()
    auth_methods: tuple[AuthMethod, ...] = ()

    @property
    def display_name(self) -> str:
        return self.title or self.name


class OpenedSession(Model):
    """The answer to `session/new`, `session/load` or `session/resume`."""

    session_id: str
    modes: tuple[Mode, ...] = ()
    current_mode_id: str | None = None
    config_options: tuple[ConfigOption, ...] = ()
    commands: tuple[Command, ...] | None = None  # ACP v2 lists them in the answer too (None: not there)


class StoredSessionInfo(Model):
    """One entry of the agent's `session/list`: a session it keeps that can be loaded or resumed."""

    session_id: str
    title: str | None = None
    updated_at: str | None = None
