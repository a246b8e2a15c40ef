"""What a session's state says of itself, derived and read only: its status for the badge and the
sidebar, its title, whether a prompt may go out now, the modes it shows, and its entries by id.

`SessionState` inherits these facts; they read its fields (declared here for the type checker, defined
there) and change nothing.
"""

from __future__ import annotations

from webclient.acp.controls import ConfigOption, Mode
from webclient.acp.models import AgentStatus, AuthMethod
from webclient.domain.items import Item, TerminalView, ToolCallItem
from webclient.domain.kept.entries import KeptCopy
from webclient.domain.sign_in import SignIn
from webclient.domain.transcript import Transcript
from webclient.domain.turn import TurnState

TITLE_CHARS = 60  # a title made from the first prompt is cut to this many characters


class SessionFacts:
    """The read-only facts of a `SessionState`."""

    session_id: str | None
    agent_status: AgentStatus
    agent_state: str | None
    turn: TurnState
    title: str | None
    sign_in: SignIn
    queued: bool
    protocol_version: int
    available_modes: tuple[Mode, ...]
    config_options: tuple[ConfigOption, ...]
    transcript: Transcript
    kept: KeptCopy | None

    @property
    def items(self) -> list[Item]:
        """The transcript's entries in order (read only: the transitions change them)."""
        return self.transcript.items

    @property
    def terminals(self) -> dict[str, TerminalView]:
        """What the tool-call cards show of each terminal, by terminal id."""
        return self.transcript.terminals

    @property
    def display_status(self) -> str:
        """What the status badge says: the agent's lifecycle, "opening" until `session/new` answered,
        or the turn while the agent is ready."""
        if self.kept is not None:
            return "read-only"
        opening = self.session_id is None and (self.turn is TurnState.IDLE or self.queued)
        if self.agent_status is AgentStatus.READY and opening:
            return "opening"
        if self.agent_status is AgentStatus.READY and self.turn is not TurnState.IDLE:
            return self.turn.value
        return self.agent_status.value

    @property
    def needs_answer(self) -> bool:
        """A permission request waits for the user."""
        return self.transcript.needs_answer

    @property
    def session_status(self) -> str:
        """The state the sidebar shows: working, needs-answer, ready or exited (or starting, sign-in)."""
        if self.agent_status is AgentStatus.READY and (
            self.needs_answer or self.agent_state == "requires_action"
        ):
            return "needs-answer"
        status = self.display_status
        return "working" if status == TurnState.CANCELLING.value else status

    @property
    def display_title(self) -> str:
        """The agent's title for the session, else the first prompt's first line, never a raw id."""
        if self.title and self.title.strip():
            return self.title.strip()
        first = self.transcript.first_user_message()
        line = next((ln.strip() for ln in (first.text if first else "").splitlines() if ln.strip()), "")
        if not line:
            return "New session"
        return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"

    @property
    def auth_methods(self) -> tuple[AuthMethod, ...]:
        return self.sign_in.methods

    @property
    def can_prompt(self) -> bool:
        """Whether a prompt may go out now. ACP v2 agents take one in any state (they queue it or steer
        with it), so only a cancel in progress holds it back there; v1 has one turn at a time."""
        if self.agent_status is not AgentStatus.READY or self.kept is not None:
            return False
        if self.protocol_version >= 2:
            return self.turn in (TurnState.IDLE, TurnState.WORKING)
        return self.turn is TurnState.IDLE

    @property
    def keyed_messages(self) -> bool:
        """ACP v2: messages are upserts by id, and the agent inserts the user's prompt itself."""
        return self.protocol_version >= 2

    @property
    def shows_mode_selector(self) -> bool:
        """Whether the header shows the `modes` selector: not when a config option of category `mode`
        offers the same choice (ACP: prefer config options; agents send both for older clients)."""
        return bool(self.available_modes) and not any(o.category == "mode" for o in self.config_options)

    @property
    def mode_names(self) -> tuple[str, ...]:
        """The agent's modes by name: its `modes`, or (ACP v2 has no modes) its config option of
        category `mode`."""
        if self.available_modes:
            return tuple(mode.name for mode in self.available_modes)
        option = next((o for o in self.config_options if o.category == "mode" and o.kind == "select"), None)
        return tuple(c.name for group in option.groups for c in group.choices) if option else ()

    def tool_card(self, tool_call_id: str) -> ToolCallItem | None:
        """The card of a tool call, if the agent sent one (a permission request may come without)."""
        return self.transcript.tool_card(tool_call_id)

    def item(self, item_id: str) -> Item | None:
        return self.transcript.item(item_id)

    @property
    def pending_prompts(self) -> int:
        """ACP v2: prompts sent that the agent has not inserted into its history yet."""
        return self.transcript.pending_prompts
