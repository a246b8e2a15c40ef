"""Asking the user before an agent's write to a protected path (see `protected.py`).

A write that could make code run (a `.git/config`, a hook, an executable) is held until the user says
yes. The question is an ordinary permission request, built here by the client rather than sent by the
agent: an `edit` tool call whose content is the diff, with the options Allow once and Reject. Only
`ALLOW` approves; a rejection, a cancel, a closed session or the end of the turn all leave the file as
it was and answer the agent with a JSON-RPC error.
"""

from __future__ import annotations

import itertools

from webclient.acp.models import (
    PermissionOption,
    PermissionOutcome,
    PermissionRequest,
    ToolCallContent,
    ToolCallEvent,
    ToolCallLocation,
)
from webclient.domain.files import FileAccessError

__all__ = ["ALLOW", "REJECT", "WriteNotApproved", "approves", "protected_write_request"]

ALLOW = "allow-protected-write"
REJECT = "reject-protected-write"
_OPTIONS = (
    PermissionOption(id=ALLOW, name="Allow once", kind="allow_once"),
    PermissionOption(id=REJECT, name="Reject", kind="reject_once"),
)
_ids = itertools.count(1)


class WriteNotApproved(FileAccessError):
    """The user did not approve a write to a protected path; nothing was written."""


def protected_write_request(
    session_id: str, path: str, old_text: str | None, new_text: str
) -> PermissionRequest:
    """The question shown for a write of ``new_text`` over ``old_text`` (None: a new file) at ``path``."""
    diff = ToolCallContent(kind="diff", path=path, old_text=old_text, new_text=new_text)
    tool = ToolCallEvent(
        tool_call_id=f"webclient-protected-write-{next(_ids)}",  # ours: never one of the agent's ids
        is_update=False,
        title=f"Write to a protected file: {path}",  # the card shows the path apart; this is its label
        kind="edit",
        status="pending",
        content=(diff,),
        locations=(ToolCallLocation(path=path),),
    )
    return PermissionRequest(session_id=session_id, tool_call=tool, options=_OPTIONS)


def approves(outcome: PermissionOutcome) -> bool:
    """Only the user's explicit Allow once approves the write."""
    return outcome.option_id == ALLOW
