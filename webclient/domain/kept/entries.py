"""A transcript as webclient keeps it on disk: our own small models, and the way between them and the
transcript's entries.

What is kept of each entry is what the page needs to show it again, read only: a message's text (a
non-text part by its name), a tool call's title, kind, status and the changes it showed, a notice's
level and text; a permission request and a file write as a line that says what happened. Every text
is cut at `MAX_ENTRY_CHARS`, so one entry costs a bounded amount of disk.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from webclient.acp.models import (
    ContentPart,
    ImagePart,
    MessageChunk,
    Notice,
    NoticeLevel,
    ResourceLinkPart,
    ResourcePart,
    TextPart,
    ToolCallContent,
    ToolCallEvent,
)
from webclient.domain.items import (
    FileWriteItem,
    Item,
    MessageItem,
    NoticeItem,
    PermissionItem,
    PermissionState,
    ToolCallItem,
)
from webclient.domain.transcript import Transcript

# The most of one text an entry keeps (characters): past it, the start is kept and the rest counted.
MAX_ENTRY_CHARS = 512 * 1024
# The most of a stored conversation "Copy into a new session" puts into the composer (its end is kept).
MAX_COPY_CHARS = 100_000


class KeptDiff(BaseModel):
    """A change a tool call showed: the file, and its text before (None: a new file) and after."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    path: str
    old_text: str | None = None
    new_text: str = ""


class KeptEntry(BaseModel):
    """One transcript entry as kept: `kind` says which of the fields mean something."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    kind: Literal["message", "tool", "notice"]
    role: Literal["user", "agent", "thought"] | None = None  # a message's speaker
    text: str = ""  # a message's text, a notice's text
    title: str = ""  # a tool call's title
    status: str | None = None  # a tool call's status
    tool_kind: str | None = None
    level: NoticeLevel = NoticeLevel.INFO  # a notice's level
    auto_sent: bool = False  # a user message that was an auto-sent suggestion
    diffs: tuple[KeptDiff, ...] = ()

    def with_text(self, text: str) -> KeptEntry:
        """The same entry with another text (no copy of anything else)."""
        return self.model_copy(update=dict(text=text))


@dataclass(frozen=True)
class KeptSummary:
    """A kept transcript as the sidebar lists it. `key` names it in the store; `session_id` is the
    agent's id for the session it copies (None: the session never opened at the agent)."""

    key: str
    agent_key: str
    agent_label: str
    session_id: str | None
    title: str
    created: float
    updated: float
    size: int = 0  # bytes on disk, the entries' share


@dataclass(frozen=True)
class KeptTranscript:
    summary: KeptSummary
    entries: tuple[KeptEntry, ...]


@dataclass(frozen=True)
class KeptCopy:
    """What a session that shows a stored copy says of it: which copy, and when it was last written."""

    key: str
    title: str
    saved_at: float


def bounded(text: str, limit: int = MAX_ENTRY_CHARS) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n\n[{len(text) - limit:,} more characters were not kept]"


def to_entry(item: Item) -> KeptEntry | None:
    """What is kept of one transcript entry (None: nothing, a pending prompt not yet sent on)."""
    if isinstance(item, MessageItem):
        text = "".join(_part_text(part) for part in item.parts)
        return KeptEntry(kind="message", role=item.role, text=bounded(text), auto_sent=item.auto_sent)
    if isinstance(item, ToolCallItem):
        diffs = tuple(_diffs(item.content))
        return KeptEntry(
            kind="tool", title=bounded(item.title or item.tool_call_id, 2000), status=item.status,
            tool_kind=item.kind, diffs=diffs,
        )  # fmt: skip
    if isinstance(item, NoticeItem):
        notice = item.latest
        suffix = f" ({item.count} times)" if item.count > 1 else ""
        return KeptEntry(kind="notice", level=notice.level, text=bounded(notice.text + suffix))
    if isinstance(item, PermissionItem):
        return KeptEntry(kind="notice", text=bounded(_permission_line(item)))
    if isinstance(item, FileWriteItem):
        return KeptEntry(kind="notice", text=bounded(f"the agent wrote {item.path}"))
    return None


def rebuild(entries: Iterable[KeptEntry]) -> Transcript:
    """A transcript that shows the kept entries again, built by the transcript's own transitions."""
    transcript = Transcript()
    for number, entry in enumerate(entries):
        transcript.close_open_message()  # each kept message is one entry, whoever spoke before it
        if entry.kind == "message" and entry.role == "user":
            transcript.add_user_message([TextPart(text=entry.text)], auto_sent=entry.auto_sent, pending=False)
        elif entry.kind == "message" and entry.role is not None:
            transcript.add_chunk(
                MessageChunk(role=entry.role, content=TextPart(text=entry.text)), keyed=False
            )
        elif entry.kind == "tool":
            transcript.tool_call(_tool_event(number, entry))
        else:
            transcript.add_notice(Notice(level=entry.level, text=entry.text))
    transcript.close_open_message()
    return transcript


def copy_text(title: str, entries: Iterable[KeptEntry], limit: int = MAX_COPY_CHARS) -> str:
    """The stored conversation as plain text for a new session's composer: who said what, in order,
    its end kept when it is longer than `limit`; the user adds their own words after it."""
    lines = [_copy_line(entry) for entry in entries if entry.kind in ("message", "tool")]
    body = "\n\n".join(line for line in lines if line)
    if len(body) > limit:
        body = f"[the first {len(body) - limit:,} characters are left out]\n\n{body[-limit:]}"
    head = f"Here is an earlier conversation (“{title}”), for context:"
    return f"{head}\n\n{body}\n\n---\n\n"


def _copy_line(entry: KeptEntry) -> str:
    if entry.kind == "tool":
        return f"[tool call: {entry.title}{f' ({entry.status})' if entry.status else ''}]"
    speaker = {"user": "User", "agent": "Agent", "thought": "Agent (thinking)"}[entry.role or "agent"]
    return f"{speaker}: {entry.text.strip()}" if entry.text.strip() else ""


def _part_text(part: ContentPart) -> str:
    if isinstance(part, TextPart):
        return part.text
    if isinstance(part, ResourceLinkPart):
        return f"[file: {part.name}]"
    if isinstance(part, ResourcePart):
        return f"[file: {part.uri}]"
    return "[image]" if isinstance(part, ImagePart) else "[audio]"


def _diffs(content: Iterable[ToolCallContent]) -> Iterable[KeptDiff]:
    for piece in content:
        if piece.kind == "diff" and piece.path is not None:
            old = None if piece.old_text is None else bounded(piece.old_text)
            yield KeptDiff(path=piece.path, old_text=old, new_text=bounded(piece.new_text or ""))


def _tool_event(number: int, entry: KeptEntry) -> ToolCallEvent:
    content = tuple(
        ToolCallContent(kind="diff", path=d.path, old_text=d.old_text, new_text=d.new_text)
        for d in entry.diffs
    )
    return ToolCallEvent(
        tool_call_id=f"kept-{number}", is_update=False, title=entry.title, kind=entry.tool_kind,
        status=entry.status, content=content,
    )  # fmt: skip


def _permission_line(item: PermissionItem) -> str:
    asked = f"permission asked: {item.title or 'a tool call'}"
    if item.state is PermissionState.ANSWERED:
        return f"{asked}; you chose {item.chosen}"
    return f"{asked}; {'cancelled' if item.state is PermissionState.CANCELLED else 'not answered'}"
