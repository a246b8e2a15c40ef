"""The parts of a session's state beside its transcript entries, by which a change is told."""

from __future__ import annotations

from enum import StrEnum


class Aspect(StrEnum):
    """A part of a session's state beside its transcript entries; what changed is told by these."""

    STATUS = "status"  # the agent's lifecycle and the turn
    DETAILS = "details"  # agent name, title, usage, modes and config options
    PLAN = "plan"
    SIGN_IN = "sign-in"
    SUGGESTIONS = "suggestions"
    QUEUE = "queue"  # the prompts waiting for the running turn to end
    SESSIONS = "sessions"  # the other sessions, live and stored
    KEPT_COPIES = "kept-copies"  # the copies webclient kept of sessions no agent brings back
    COMMANDS = "commands"
    PROTOCOL_LOG = "protocol-log"  # a message of this session crossed the wire
