"""What the agent asks of us (permission, terminals), and our answers."""

from __future__ import annotations

from webclient.acp.models.base import Model
from webclient.acp.models.events import TerminalExit, ToolCallEvent


class PermissionOption(Model):
    id: str
    name: str
    kind: str | None = None

    @property
    def rejects(self) -> bool:
        return (self.kind or "").startswith("reject")


class PermissionRequest(Model):
    """The agent asks before it acts (`session/request_permission`): the tool call and its options.

    ACP v2 asks with its own `question` (which never renames the tool call) and `description`; its
    subject may be a command rather than a tool call: then `tool_call` only describes it
    (`updates_card` False: no card is opened or changed for it)."""

    session_id: str
    tool_call: ToolCallEvent
    options: tuple[PermissionOption, ...]
    question: str | None = None
    description: str | None = None
    updates_card: bool = True

    @property
    def title(self) -> str:
        return self.question or self.tool_call.title or self.tool_call.tool_call_id or "a tool call"

    def option(self, option_id: str) -> PermissionOption | None:
        return next((o for o in self.options if o.id == option_id), None)


class TerminalRequest(Model):
    """`terminal/create`: run `command` with `args` (none: one shell command line) in `cwd`."""

    session_id: str
    command: str
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    output_byte_limit: int | None = None


class TerminalOutput(Model):
    """`terminal/output`: what was captured so far (the tail, when `truncated`), and the exit if any."""

    output: str
    truncated: bool
    exit: TerminalExit | None = None


class PermissionOutcome(Model):
    """The user's answer: the chosen option's id, or None for "cancelled" (nothing approved)."""

    option_id: str | None = None

    @classmethod
    def cancelled(cls) -> PermissionOutcome:
        return cls(option_id=None)
