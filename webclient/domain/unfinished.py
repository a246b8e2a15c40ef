"""What a turn that ended with tool calls still open leaves behind: a note for the protocol inspector and
a notice with what the agent wrote to its error log meanwhile.

An agent whose own sandbox refuses a command (codex-acp in ACP v2) may never update that call's card and
end its turn anyway; the card then shows "not finished", and this says so where people look, with the
agent's log lines from the turn, which often name the reason.
"""

from __future__ import annotations

from webclient.acp.models import Notice, NoticeLevel

MAX_TITLES = 5


def written_since(before: list[str], after: list[str]) -> list[str]:
    """The lines of the stderr tail `after` that were not in the tail `before` (both bounded, oldest first:
    the longest end of `before` that `after` starts with is what they share)."""
    for shared in range(min(len(before), len(after)), 0, -1):
        if after[:shared] == before[-shared:]:
            return after[shared:]
    return after


def report(titles: list[str], stderr: list[str]) -> tuple[str, Notice]:
    """The inspector's note and the transcript's notice for the calls named `titles`."""
    named = ", ".join(repr(title) for title in titles[:MAX_TITLES])
    more = f" and {len(titles) - MAX_TITLES} more" if len(titles) > MAX_TITLES else ""
    note = (
        f"the turn ended with {len(titles)} tool call(s) still pending or in progress: {named}{more}; "
        "the agent never said how they ended, so they show as not finished"
    )
    text = f"the agent ended its turn without finishing {named}{more}"
    detail = (
        "What the agent wrote to its error log during the turn:\n" + "\n".join(stderr) if stderr else None
    )
    return note, Notice(level=NoticeLevel.WARNING, text=text, detail=detail)
