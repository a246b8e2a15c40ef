"""Notices in plain words: what a person needs to know first, with the technical text one click away.

The domain words its notices for the record ("prompt suggestions: ...", "the agent could not open a
session: ...");
this module says what they mean for the user. A notice it does not know keeps its own words.
"""

from __future__ import annotations

from webclient.acp.models import Notice
from webclient.agent_config import INSTALL_LINES

__all__ = ["INSTALL_LINES", "command_not_found", "has_detail", "plain_text"]

# Notice text prefix (lower case) -> what it means, in words a non-engineer understands.
PLAIN: tuple[tuple[str, str], ...] = (
    ("prompt suggestions", "The agent sent prompt suggestions that break the rules; those were left out."),
    (
        "refused the agent's request to",
        "The agent tried to use a file outside this workspace; stopped.",
    ),
    ("could not list the agent's sessions", "The list of stored sessions could not be loaded."),
    ("could not open session", "That session could not be opened."),
    ("the agent could not open a session", "A new session could not be started."),
    ("ignored an update for unknown session", "The agent sent news about a session that is not open here."),
    ("ignored updates for unknown sessions", "The agent sent news about sessions that are not open here."),
    (
        "declined a permission request",
        "The agent asked permission in a session not open here; declined.",
    ),
    ("agent exited", "The agent stopped running."),
    (
        "the agent speaks acp version",
        "This agent speaks another protocol version; some things may not work.",
    ),
    ("restarting the agent", "The agent is restarting; the conversation goes on in a new session."),
)


def plain_text(notice: Notice) -> str:
    """The notice's meaning in plain words, or its own text when there is no better one.

    (The page capitalises the first letter: the text itself stays as the domain wrote it.)
    """
    if notice.from_agent:  # the agent's own words, as it wrote them
        return notice.text
    lowered = notice.text.strip().lower()
    for prefix, meaning in PLAIN:
        if lowered.startswith(prefix):
            return meaning
    return notice.text


def has_detail(notice: Notice) -> bool:
    """Whether there is more to see than the plain words: the original text or the agent's own detail."""
    return bool(notice.detail) or plain_text(notice) != notice.text


def command_not_found(notice: Notice) -> bool:
    """Whether an agent failure looks like a missing command: it could not be spawned, or a shell or
    launcher said so (exit code 127)."""
    text = notice.text.lower()
    missing = "could not start" in text and ("no such file" in text or "not found" in text)
    return missing or text.rstrip().endswith("code 127")
