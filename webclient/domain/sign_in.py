"""What the page shows of an agent that asks the user to sign in."""

from __future__ import annotations

from dataclasses import dataclass

from webclient.acp.models import AuthMethod


@dataclass(frozen=True)
class SignIn:
    """What the page shows while the agent waits for a sign-in: every method it offers, the one being
    tried, what went wrong last, and for terminal methods the command to run."""

    methods: tuple[AuthMethod, ...] = ()
    pending: str | None = None
    error: str | None = None
    commands: tuple[tuple[str, str], ...] = ()  # (method id, command line) for terminal methods

    @property
    def active(self) -> bool:
        return bool(self.methods)

    def command(self, method_id: str) -> str:
        return dict(self.commands).get(method_id, "")
