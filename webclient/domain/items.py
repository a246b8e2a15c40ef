"""The entries of a session's transcript: messages, notices, tool-call cards, permission requests and
file writes, and what a tool-call card shows of a terminal. Each entry has a stable id the page keys on.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Literal

from webclient.acp.models import (
    ContentPart,
    Notice,
    PermissionOption,
    PermissionRequest,
    TerminalEvent,
    TerminalExit,
    TerminalStream,
    TextPart,
    ToolCallContent,
    ToolCallEvent,
)

KEPT_REPEATS = 20  # repeats of a notice kept for their details; the count goes on

_ids = itertools.count(1)


def _new_id(prefix: str) -> str:
    return f"{prefix}-{next(_ids)}"


@dataclass
class MessageItem:
    """A user message, an agent message or a thought; consecutive chunks of one role merge into it."""

    role: Literal["user", "agent", "thought"]
    parts: list[ContentPart] = field(default_factory=list)
    message_id: str | None = None
    auto_sent: bool = False
    # ACP v2: a prompt we sent that the agent has not yet inserted into its history (its user message
    # replaces this local copy when it does).
    pending: bool = False
    id: str = field(default_factory=lambda: _new_id("msg"))

    def add(self, part: ContentPart) -> None:
        last = self.parts[-1] if self.parts else None
        if isinstance(part, TextPart) and isinstance(last, TextPart):
            self.parts[-1] = TextPart(text=last.text + part.text)
        else:
            self.parts.append(part)

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))


@dataclass
class NoticeItem:
    """A notice, and the ones of the same kind that followed it since the user's last prompt.

    They show as one notice with a count; only the latest few repeats are kept, so an agent that logs a
    line a millisecond to stdout costs one notice of bounded size.
    """

    notice: Notice
    repeats: list[Notice] = field(default_factory=list)  # the latest KEPT_REPEATS of the repeats
    count: int = 1
    id: str = field(default_factory=lambda: _new_id("notice"))
    # The agent failed (exited, or could not start): one card for it that each restart updates in place,
    # its count the attempt; `restarting` while a restart from it is under way.
    failure: bool = False
    restarting: bool = False
    note: str = ""  # how the failure stands now, in the domain's words: restarting, or running again
    settled_at: float | None = None  # when a restart from it brought the agent back (epoch seconds)

    @property
    def latest(self) -> Notice:
        return self.repeats[-1] if self.repeats else self.notice

    @property
    def all(self) -> list[Notice]:
        return [self.notice, *self.repeats]

    def add(self, notice: Notice) -> None:
        self.count += 1
        self.repeats.append(notice)
        del self.repeats[:-KEPT_REPEATS]

    def same_kind(self, notice: Notice) -> bool:
        return notice.level == self.notice.level and notice_kind(notice) == notice_kind(self.notice)


def notice_kind(notice: Notice) -> str:
    """What a notice is about: the text before its first colon ("prompt suggestions: ..."), or all of it."""
    return notice.text.split(":", 1)[0].strip().lower()


@dataclass
class ToolCallItem:
    """One card per toolCallId; `tool_call_update` fills in only the fields it sends."""

    tool_call_id: str
    title: str = ""
    kind: str | None = None
    status: str | None = None
    # A list, appended to in place: an ACP v2 agent may send a content of 20,000 entries one at a time,
    # and a tuple made anew for each cost each entry the length of the content (a copy of every entry).
    content: list[ToolCallContent] = field(default_factory=list)
    locations: tuple[Any, ...] = ()
    raw_input: Any = None
    raw_output: Any = None
    streamed_terminals: set[str] = field(default_factory=set)  # output the agent sent in `_meta`
    cancellable: bool = False  # ACP v2 `capabilities.cancel`: the page may stop it (`tool_call/cancel`)
    # The turn ended with this card still pending or in progress: the agent never said how it ended.
    unfinished: bool = False
    # Counts the times `content` was replaced or cleared (not added to): a tab that has the content of the
    # same epoch up to some length may be sent only the entries added since.
    content_epoch: int = 0
    id: str = field(default_factory=lambda: _new_id("tool"))

    @property
    def terminal_ids(self) -> set[str]:
        """The terminals this card embeds (its content entries of kind `terminal`)."""
        return {c.terminal_id for c in self.content if c.kind == "terminal" and c.terminal_id}

    def merge(self, event: ToolCallEvent) -> None:
        """Fields sent replace, fields cleared (v2's null) go back to nothing, appended content adds."""
        for name in ("title", "kind", "status", "locations", "raw_input", "raw_output"):
            value = getattr(event, name)
            if value is not None:
                setattr(self, name, value)
            elif name in event.cleared:
                setattr(self, name, _CLEARED[name])
        if event.content is not None or "content" in event.cleared:
            self.content = list(event.content or ())
            self.content_epoch += 1
        if event.appended:
            self.content.extend(event.appended)
        if event.cancellable is not None:
            self.cancellable = event.cancellable
        if event.status is not None:
            self.unfinished = False  # the agent said how it stands after all

    @property
    def stoppable(self) -> bool:
        """The agent lets the page stop it, and it has not ended."""
        return (
            self.cancellable
            and not self.unfinished
            and (self.status or "pending") in ("pending", "in_progress")
        )


_CLEARED: dict[str, Any] = {
    "title": "",
    "kind": None,
    "status": None,
    "locations": (),
    "raw_input": None,
    "raw_output": None,
}


# How much of the output an agent streams in a tool call's `_meta` a session keeps (the tail).
MAX_STREAMED_CHARS = 1024 * 1024


@dataclass
class TerminalView:
    """What a tool-call card shows of a terminal: a client terminal's output as last captured, or the
    output an agent streamed in `_meta` (codex-acp). `truncated`: earlier output was dropped."""

    truncated: bool = False
    exit: TerminalExit | None = None
    command: str | None = None  # what an ACP v2 agent says its terminal runs
    cancellable: bool = False  # ACP v2 `capabilities.cancel`: the page may stop it (`terminal/cancel`)
    # Counts the changes of `output` other than text added at its end (replaced, its head cut): a tab
    # that has the output up to some length of the same epoch may be sent only what was added since.
    epoch: int = 0
    # The output's length, and the output as the pieces added since it was last read whole: a chunk adds a
    # piece and copies nothing (the output made anew for each cost each line all of it, 1 ms a line at
    # 1 MB); `output` joins them when the card is rendered whole, `since` reads only the last ones.
    length: int = 0
    _pieces: list[str] = field(default_factory=list, repr=False, compare=False)
    # A frame rendered on a worker thread may join the pieces while the loop adds one.
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def output(self) -> str:
        """The whole output (the pieces joined into one, once)."""
        with self._lock:
            if len(self._pieces) > 1:
                self._pieces[:] = ["".join(self._pieces)]
            return self._pieces[0] if self._pieces else ""

    def since(self, start: int) -> str:
        """The output from `start` on, read from the pieces it spans only."""
        with self._lock:
            at, count = self.length, 0
            for piece in reversed(self._pieces):
                if at <= start:
                    break
                at -= len(piece)
                count += 1
            return "".join(self._pieces[len(self._pieces) - count :])[start - at :]

    def stream(self, chunk: TerminalStream) -> None:
        if chunk.data:
            with self._lock:
                self._pieces.append(chunk.data)
                self.length += len(chunk.data)
        if self.length > MAX_STREAMED_CHARS:
            # A quarter more than needed goes: the head is cut once every so many chunks, not on each.
            self.replace(self.output[-(MAX_STREAMED_CHARS * 3 // 4) :], truncated=True)
        if chunk.exited:
            self.exit = TerminalExit(exit_code=chunk.exit_code)

    def replace(self, output: str, *, truncated: bool) -> None:
        """The output is now `output` (not only longer)."""
        self._set(output)
        self.truncated = truncated
        self.epoch += 1

    def capture(self, output: str, truncated: bool, exit: TerminalExit | None) -> None:
        """A client terminal's output as captured again: kept as an addition when it only grew."""
        if truncated == self.truncated and len(output) >= self.length and output.startswith(self.output):
            self._set(output)
        else:
            self.replace(output, truncated=truncated)
        self.exit = exit

    def _set(self, output: str) -> None:
        with self._lock:
            self._pieces[:] = [output] if output else []
            self.length = len(output)

    def update(self, event: TerminalEvent) -> None:
        """An ACP v2 display terminal: a snapshot replaces the output, a chunk adds to it."""
        if event.command is not None:
            self.command = event.command
        if event.output is not None:
            self.replace(event.output, truncated=False)
        self.stream(TerminalStream(data=event.appended))
        if event.exit is not None:
            self.exit = event.exit
        if event.cancellable is not None:
            self.cancellable = event.cancellable


class PermissionState(StrEnum):
    PENDING = "pending"
    ANSWERED = "answered"
    CANCELLED = "cancelled"


@dataclass
class PermissionItem:
    """The agent asks before it acts; the user answers with one of the agent's own options."""

    request: PermissionRequest
    state: PermissionState = PermissionState.PENDING
    chosen: str | None = None  # the name of the option the user chose
    # True when webclient asks, not the agent: a write to a protected path waits for the user.
    asked_by_client: bool = False
    id: str = field(default_factory=lambda: _new_id("perm"))

    @property
    def tool_call(self) -> ToolCallEvent:
        return self.request.tool_call

    @property
    def options(self) -> tuple[PermissionOption, ...]:
        return self.request.options

    @property
    def title(self) -> str:
        return self.request.title


@dataclass
class FileWriteItem:
    """The agent wrote a file through us (`fs/write_text_file`)."""

    path: str
    old_text: str | None
    new_text: str
    # A tool call of this session already shows this very change as a diff: the write only names it.
    diff_shown: bool = False
    id: str = field(default_factory=lambda: _new_id("write"))


Item = MessageItem | NoticeItem | ToolCallItem | PermissionItem | FileWriteItem


def as_it_is(item: Item) -> Item:
    """`item` as it is now, for a reader on another thread: the lists the loop appends to in place (a
    message's parts, a card's content) are copied, so what the reader sees does not grow under it. Every
    other field is replaced when it changes, never changed in place."""
    if isinstance(item, ToolCallItem):
        return replace(item, content=list(item.content), streamed_terminals=set(item.streamed_terminals))
    if isinstance(item, MessageItem):
        return replace(item, parts=list(item.parts))
    if isinstance(item, NoticeItem):
        return replace(item, repeats=list(item.repeats))
    return item
