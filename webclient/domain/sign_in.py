"""What the page shows of an agent that asks the user to sign in."""

from __future__ import annotations

from dataclasses import dataclass

from webclient.acp.models import AuthMethod
from webclient.agent_config import AgentSpec


@dataclass(frozen=True)
class TerminalCommand:
    """What a terminal sign-in asks the user to run: the agent's command with the method's arguments,
    and the method's variables, as the agent named them (the page quotes and checks them)."""

    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class SignIn:
    """What the page shows while the agent waits for a sign-in: every method it offers, the one being
    tried, what went wrong last, and for terminal methods the command to run."""

    methods: tuple[AuthMethod, ...] = ()
    pending: str | None = None
    error: str | None = None
    commands: tuple[tuple[str, TerminalCommand], ...] = ()  # (method id, command) for terminal methods

    @property
    def active(self) -> bool:
        return bool(self.methods)

    def command(self, method_id: str) -> TerminalCommand:
        return dict(self.commands).get(method_id, TerminalCommand(argv=()))


def terminal_command(spec: AgentSpec, method: AuthMethod) -> TerminalCommand:
    """The command a terminal sign-in method asks the user to run: the agent's own, with the method's
    arguments and environment."""
    return TerminalCommand(argv=(*spec.argv, *method.args), env=method.env)
