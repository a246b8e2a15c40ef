"""The transcript of one session: its entries in order, and how what the agent says and what the user
does merge into them.

`SessionState` owns one `Transcript` and is the only caller of its transitions; each returns the ids of
the entries it changed. No I/O here.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from webclient.acp.models import (
    ContentPart,
    MessageChunk,
    MessageUpsert,
    Notice,
    NoticeLevel,
    TerminalEvent,
    TerminalOutput,
    TerminalStream,
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
    TerminalView,
    ToolCallItem,
)

# What all the terminals' cards of one session show, together (characters), the tail a card keeps when
# that is passed, and how many terminals a session remembers (their ids are the agent's to invent).
TERMINALS_BUDGET = 8 * 1024 * 1024
KEPT_TAIL = 16 * 1024
MAX_TERMINAL_VIEWS = 1000


class Transcript:
    """Messages, notices, tool-call cards, permission requests and file writes, and the terminals the
    cards show. Consecutive chunks of one speaker merge into the open message; ACP v2 messages are keyed
    by id instead."""

    def __init__(self) -> None:
        self.items: list[Item] = []
        self._positions: dict[str, int] = {}  # entry id -> its index in `items` (entries are only appended)
        # The prompts sent that the agent has not taken in yet, oldest first (read on every update).
        self._pending: list[MessageItem] = []
        self.terminals: dict[str, TerminalView] = {}  # by terminal id
        self._tool_calls: dict[str, ToolCallItem] = {}
        # The cards that embed (or once embedded) each terminal: its output's updates find them here,
        # not by a walk of every card of the session.
        self._terminal_cards: dict[str, list[ToolCallItem]] = {}
        self._open_message: MessageItem | None = None
        self._messages: dict[tuple[str, str], MessageItem] = {}  # v2: by (role, id)

    # --- queries ----------------------------------------------------------------------------------------

    def item(self, item_id: str) -> Item | None:
        position = self._positions.get(item_id)
        return None if position is None else self.items[position]

    def entries(self, keys: Iterable[str]) -> list[Item]:
        """The entries among `keys` (other keys are ignored), in transcript order; however long the
        transcript, this costs what the keys cost."""
        positions = sorted(p for key in keys if (p := self._positions.get(key)) is not None)
        return [self.items[p] for p in positions]

    def tool_card(self, tool_call_id: str) -> ToolCallItem | None:
        return self._tool_calls.get(tool_call_id)

    def first_user_message(self) -> MessageItem | None:
        return next((i for i in self.items if isinstance(i, MessageItem) and i.role == "user"), None)

    @property
    def needs_answer(self) -> bool:
        return any(isinstance(i, PermissionItem) and i.state is PermissionState.PENDING for i in self.items)

    @property
    def pending_prompts(self) -> int:
        return len(self._pending)

    # --- messages ---------------------------------------------------------------------------------------

    def add_user_message(self, parts: Sequence[ContentPart], *, auto_sent: bool, pending: bool) -> set[str]:
        item = MessageItem(role="user", parts=list(parts), auto_sent=auto_sent, pending=pending)
        if pending:
            self._pending.append(item)
        return self._append(item)

    def add_chunk(self, chunk: MessageChunk, *, keyed: bool) -> set[str]:
        """A chunk of a message: keyed (ACP v2) by its message id, else into the open message."""
        if isinstance(chunk.content, TextPart) and not chunk.content.text:
            return set()  # an empty chunk (qwen-code sends one with its usage data) adds nothing
        if keyed and chunk.message_id is not None:
            keyed_item = self._keyed(chunk.role, chunk.message_id)
            keyed_item.add(chunk.content)
            return {keyed_item.id}
        item = self._open_message
        if item is None or item.role != chunk.role or _different_message(item, chunk):
            item = MessageItem(role=chunk.role, message_id=chunk.message_id)
            self._add(item)
            self._open_message = item
        item.add(chunk.content)
        return {item.id}

    def upsert_message(self, event: MessageUpsert) -> set[str]:
        """ACP v2: content sent replaces the message's (null or [] clears it); left out, it stays."""
        item = self._keyed(event.role, event.message_id)
        if "parts" in event.model_fields_set:
            item.parts = list(event.parts or ())
        return {item.id}

    def close_open_message(self) -> set[str]:
        self._open_message = None
        return set()

    def settle_pending(self) -> set[str]:
        """Prompts still pending stop saying they wait (nobody will take them in now)."""
        settled, self._pending = self._pending, []
        for item in settled:
            item.pending = False
        return {item.id for item in settled}

    def _keyed(self, role: str, message_id: str) -> MessageItem:
        """The message with this id, placed at first sight. The first new user message takes the place
        of the oldest prompt still pending: it is the agent's copy of it (its content replaces ours)."""
        key = (role, message_id)
        item = self._messages.get(key)
        if item is not None:
            return item
        pending = self._take_oldest_pending() if role == "user" else None
        if pending is not None:
            pending.pending, pending.message_id, pending.parts = False, message_id, []
            item = pending
        else:
            item = MessageItem(role=role, message_id=message_id)  # type: ignore[arg-type]
            self._add(item)
        self._messages[key] = item
        self._open_message = None
        return item

    def _take_oldest_pending(self) -> MessageItem | None:
        return self._pending.pop(0) if self._pending else None

    # --- notices, permission requests, file writes ------------------------------------------------------

    def add_notice(self, notice: Notice, *, failure: bool = False) -> set[str]:
        """A notice of the same kind as the last one since the user's last prompt joins it; the message
        being streamed stays open then, so its text is not cut into pieces either.

        A `failure` of the agent (an error) joins the card of its last failure since that prompt, as one
        more attempt, so each failure has one card that updates in place; a restart (any other level)
        marks that card as restarting, and is a notice of its own only when there is no card to say it.
        """
        repeated = self._last_notice()
        if failure and repeated is not None and repeated.failure:
            if notice.level is NoticeLevel.ERROR:
                repeated.add(notice)
            repeated.restarting = notice.level is not NoticeLevel.ERROR
            repeated.note = "" if notice.level is NoticeLevel.ERROR else notice.text
            return {repeated.id}
        if failure and notice.level is NoticeLevel.ERROR:
            return self._append(NoticeItem(notice=notice, failure=True))
        if repeated is not None and repeated.same_kind(notice):
            repeated.add(notice)
            return {repeated.id}
        return self._append(NoticeItem(notice=notice))

    def renew_notice(self, notice: Notice, item_id: str | None) -> set[str]:
        """`notice` in place of the notice entry `item_id` when it is still there, else added as a notice."""
        item = self.item(item_id) if item_id is not None else None
        if isinstance(item, NoticeItem):
            item.notice = notice
            return {item.id}
        return self.add_notice(notice)

    def settle_failure(self, notice: Notice, at: float | None = None) -> set[str]:
        """The agent runs again: the failure card being restarted says so, and when (`at`, epoch seconds,
        now when not given); nothing when there is no such card."""
        last = self._last_notice()
        if last is None or not last.failure or not last.restarting:
            return set()
        last.restarting, last.note = False, notice.text
        last.settled_at = time.time() if at is None else at
        return {last.id}

    def add_item(self, item: PermissionItem | FileWriteItem) -> set[str]:
        if isinstance(item, FileWriteItem):
            item.diff_shown = self._diff_shown(item)
        return self._append(item)

    def settle_permission(self, item_id: str, state: PermissionState, chosen: str | None = None) -> set[str]:
        """A pending permission request was answered or cancelled; one no longer pending stays as it is."""
        item = self.item(item_id)
        if not isinstance(item, PermissionItem) or item.state is not PermissionState.PENDING:
            return set()
        item.state, item.chosen = state, chosen
        return {item.id}

    def _last_notice(self) -> NoticeItem | None:
        """The most recent notice, unless the user has sent a prompt since."""
        for item in reversed(self.items):
            if isinstance(item, NoticeItem):
                return item
            if isinstance(item, MessageItem) and item.role == "user":
                return None
        return None

    def _add(self, item: Item) -> None:
        self._positions[item.id] = len(self.items)
        self.items.append(item)

    def _append(self, item: Item) -> set[str]:
        self._add(item)
        self._open_message = None
        return {item.id}

    # --- tool calls and terminals -----------------------------------------------------------------------

    def tool_call(self, event: ToolCallEvent) -> set[str]:
        item = self._tool_calls.get(event.tool_call_id)
        if item is None:
            item = ToolCallItem(tool_call_id=event.tool_call_id)
            self._tool_calls[event.tool_call_id] = item
            self._add(item)
        item.merge(event)
        if event.terminal_stream is not None:
            self._stream_terminal(item, event.terminal_stream)
        # New content replaces the old, but output streamed in `_meta` belongs to the card for good.
        streamed = item.streamed_terminals - item.terminal_ids if item.streamed_terminals else set()
        for terminal_id in streamed:
            item.content.append(ToolCallContent(kind="terminal", terminal_id=terminal_id))
        # Only what this event brought is looked at: an entry at a time may make a long content.
        for entry in (*(event.content or event.appended), *item.content[len(item.content) - len(streamed) :]):
            if entry.kind == "terminal" and entry.terminal_id:
                self._index_terminal(entry.terminal_id, item)
        self._open_message = None
        return {item.id}

    def _index_terminal(self, terminal_id: str, item: ToolCallItem) -> None:
        cards = self._terminal_cards.setdefault(terminal_id, [])
        if not any(card is item for card in cards):
            cards.append(item)

    def open_tool_calls(self, background: frozenset[str] = frozenset()) -> list[ToolCallItem]:
        """The cards the agent said are pending or in progress (and not yet shown as not finished), but for
        the tool calls in `background`: ACP v2 work the agent keeps running after the turn, on purpose. A
        card it never gave a status stays as it is: the agent left nothing it had begun."""
        return [
            item
            for item in self._tool_calls.values()
            if item.status in ("pending", "in_progress")
            and not item.unfinished
            and item.tool_call_id not in background
        ]

    def turn_over(self, background: frozenset[str] = frozenset()) -> set[str]:
        """The turn ended: prompts still pending stop waiting, and cards the agent left pending or in
        progress show as not finished (neither failed nor running: the agent never said)."""
        left = self.open_tool_calls(background)
        for item in left:
            item.unfinished = True
        return self.settle_pending() | {item.id for item in left}

    def cancel_unfinished_tool_calls(self) -> set[str]:
        changed = set()
        for item in self._tool_calls.values():
            if item.status in (None, "pending", "in_progress"):
                item.status = "cancelled"
                changed.add(item.id)
        return changed

    def update_terminal(self, event: TerminalEvent) -> set[str]:
        """An ACP v2 display terminal changed: the cards that embed it change."""
        self.terminals.setdefault(event.terminal_id, TerminalView()).update(event)
        return self._cards_showing(event.terminal_id) | self._bound_terminals(event.terminal_id)

    def set_terminal(self, terminal_id: str, output: TerminalOutput) -> set[str]:
        """A client terminal's output or exit changed: the cards that embed it change."""
        view = self.terminals.setdefault(terminal_id, TerminalView())
        view.capture(output.output, output.truncated, output.exit)
        return self._cards_showing(terminal_id) | self._bound_terminals(terminal_id)

    def _bound_terminals(self, current: str) -> set[str]:
        """Keep what all terminals' cards show within `TERMINALS_BUDGET` characters: past it, the views
        other than `current`, oldest first, keep only their last `KEPT_TAIL` characters (a command's
        output as a released terminal left it is 4 MiB; 60 of them once held 260 MiB). The cards of the
        views cut change."""
        while len(self.terminals) > MAX_TERMINAL_VIEWS:
            del self.terminals[next(t for t in self.terminals if t != current)]
        total = sum(view.length for view in self.terminals.values())
        changed: set[str] = set()
        for terminal_id, view in self.terminals.items():
            if total <= TERMINALS_BUDGET:
                break
            if terminal_id == current or view.length <= KEPT_TAIL:
                continue
            total -= view.length - KEPT_TAIL
            view.replace(view.output[-KEPT_TAIL:], truncated=True)
            changed |= self._cards_showing(terminal_id)
        return changed

    def _stream_terminal(self, item: ToolCallItem, chunk: TerminalStream) -> None:
        """Output an agent streams in `_meta`: kept like a terminal's, shown in the card it names."""
        terminal_id = chunk.terminal_id or item.tool_call_id
        self.terminals.setdefault(terminal_id, TerminalView()).stream(chunk)
        item.streamed_terminals.add(terminal_id)
        self._bound_terminals(terminal_id)

    def _cards_showing(self, terminal_id: str) -> set[str]:
        cards = self._terminal_cards.get(terminal_id, ())
        return {card.id for card in cards if terminal_id in card.terminal_ids}

    def _diff_shown(self, write: FileWriteItem) -> bool:
        for tool in self._tool_calls.values():
            for entry in tool.content:
                if (
                    getattr(entry, "kind", None) != "diff"
                    or getattr(entry, "new_text", None) != write.new_text
                ):
                    continue
                path = str(getattr(entry, "path", "") or "")
                if path and (path == write.path or write.path.endswith("/" + path.lstrip("/"))):
                    return True
        return False


def _different_message(item: MessageItem, chunk: MessageChunk) -> bool:
    return (
        chunk.message_id is not None and item.message_id is not None and chunk.message_id != item.message_id
    )
