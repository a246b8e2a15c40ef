"""What one run of the agent showed: every wire line, numbered, and the events the rules read.

The `Recorder` is the run's `AgentListener`: the protocol layer hands it each message as it crosses the
wire and each update translated into our models, in wire order; the runner adds its own marks (a prompt
sent, a turn ended, a replay begun). The agent's requests are answered by the run's `Sandbox`.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from webclient.acp.models import (
    MessageChunk,
    MessageUpsert,
    Notice,
    NoticeLevel,
    PermissionOutcome,
    PermissionRequest,
    StateEvent,
    SuggestionsEvent,
    TerminalExit,
    TerminalOutput,
    TerminalRequest,
    Translation,
    TurnAnswered,
)
from webclient.check.sandbox import Sandbox
from webclient.errors import RequestRefused

# suggestions / legacy: a list by the RFD's update or by `_meta`; update: any session/update; user / reply:
# the user's message inserted or echoed, the agent's answer; idle: v2's end of a turn; prompt / response:
# a session/prompt we sent and its answer; load / load_end: the runner's marks around a replay.
Kind = Literal[
    "suggestions",
    "legacy",
    "update",
    "user",
    "reply",
    "idle",
    "prompt",
    "response",
    "load",
    "load_end",
    "warning",
    "notice",
]
# A wire line longer than this is cut in the report (the JSON keeps the cut line too), except a message
# that carries suggestions: the rules quote it, and the report shows it whole up to WHOLE_CHARS.
LINE_CHARS = 2000
WHOLE_CHARS = 1024 * 1024


@dataclass(frozen=True)
class WireLine:
    """One message on the wire, as the report quotes it: `number` counts across the whole check."""

    number: int
    run: str
    direction: str  # "in" (from the agent), "out" (to it), "note" (what the check did)
    text: str


@dataclass(frozen=True)
class Event:
    """Something a rule reads: `line` is the wire line that carried it (None for the runner's marks)."""

    kind: Kind
    session_id: str | None
    line: int | None
    at: float
    suggestions: SuggestionsEvent | None = None
    text: str = ""


@dataclass
class Numbering:
    """Wire line numbers, shared by every run of one check so that a number names one line."""

    next: int = 1
    lines: list[WireLine] = field(default_factory=list)


class Recorder:
    """The listener of one run (one agent process with one capability form)."""

    def __init__(self, run: str, numbering: Numbering, sandbox: Sandbox) -> None:
        self.run = run
        self.numbering = numbering
        self.sandbox = sandbox
        self.events: list[Event] = []
        self._last_in: int | None = None
        self.first_out: int | None = None  # the run's first line to the agent: its `initialize`
        self._prompts: dict[str, str] = {}  # JSON-RPC id of a session/prompt we sent -> its session
        self.local_tools = True  # False: a remote agent, which gets no file of this machine
        self.listed = asyncio.Event()  # set at each suggestion list; the runner clears it to wait for one

    # --- what the runner marks ---------------------------------------------------------------------------

    def mark(self, kind: Kind, session_id: str | None, text: str = "") -> None:
        self.events.append(Event(kind, session_id, None, time.monotonic(), text=text))

    def note(self, text: str) -> int:
        """A line of our own in the log (a step, a timeout); its number."""
        return self._line("note", text)

    def warn(self, text: str, line: int | None = None) -> None:
        self.events.append(Event("warning", None, line, time.monotonic(), text=text))

    def notify(self, notice: Notice, line: int | None) -> None:
        """A protocol mistake (a warning or an error we found) is a warning; anything else (what we
        ignored, or a notice the agent itself sent) is a notice, kept apart: it says nothing against it."""
        text = notice.text + (f": {notice.detail}" if notice.detail else "")
        mistake = notice.level is not NoticeLevel.INFO and not notice.from_agent
        self.events.append(Event("warning" if mistake else "notice", None, line, time.monotonic(), text=text))

    def of(self, kind: Kind) -> list[Event]:
        return [e for e in self.events if e.kind == kind]

    def predicted(self, session_id: str, since: int) -> bool:
        """Whether a non-empty list for `session_id` is among the events from index `since` on."""
        return any(
            e.kind in ("suggestions", "legacy") and e.session_id == session_id and e.suggestions is not None
            and bool(e.suggestions.sent)
            for e in self.events[since:]
        )  # fmt: skip

    # --- AgentListener -----------------------------------------------------------------------------------

    def on_wire(self, direction: str, message: dict[str, Any], version: int) -> None:
        text = json.dumps(message, ensure_ascii=False, default=repr)
        number = self._line(direction, text, WHOLE_CHARS if _carries_suggestions(message) else LINE_CHARS)
        if direction == "in":
            self._last_in = number
            key = json.dumps(message.get("id"))
            if "method" not in message and key in self._prompts:
                session = self._prompts.pop(key)
                self.events.append(Event("response", session, number, time.monotonic()))
        elif message.get("method") == "session/prompt" and "id" in message:
            params = message.get("params")
            session = str(params.get("sessionId")) if isinstance(params, dict) else "?"
            self._prompts[json.dumps(message["id"])] = session
            self.events.append(Event("prompt", session, number, time.monotonic()))

    def on_wire_note(self, text: str) -> None:
        self.note(text)

    def on_update(self, translation: Translation) -> None:
        if all(isinstance(event, TurnAnswered) for event in translation.events):
            return  # a v1 answer told in wire order, not an update: the answer is recorded on its own
        session = translation.session_id
        line = self._last_in  # the update this translation came from: the line just read
        now = time.monotonic()
        if session is None:
            self.warn("a session/update without a readable sessionId", line)
        self.events.append(Event("update", session, line, now))
        for event in translation.events:
            if isinstance(event, SuggestionsEvent):
                kind: Kind = "legacy" if event.legacy else "suggestions"
                self.events.append(Event(kind, session, line, now, suggestions=event))
                self.listed.set()
            elif isinstance(event, MessageChunk | MessageUpsert) and event.role != "thought":
                self.events.append(Event("user" if event.role == "user" else "reply", session, line, now))
            elif isinstance(event, StateEvent) and event.state == "idle":
                self.events.append(Event("idle", session, line, now))
            elif isinstance(event, Notice):
                self.notify(event, line)

    def on_notice(self, notice: Notice) -> None:
        self.notify(notice, self._last_in)

    async def request_permission(self, request: PermissionRequest) -> PermissionOutcome:
        return self.sandbox.permission(request)

    async def read_text_file(self, session_id: str, path: str, line: int | None, limit: int | None) -> str:
        self._local()
        return await asyncio.to_thread(self.sandbox.read, path, line, limit)

    async def write_text_file(self, session_id: str, path: str, content: str) -> None:
        self._local()
        await asyncio.to_thread(self.sandbox.write, path, content)

    async def create_terminal(self, request: TerminalRequest) -> str:
        raise RequestRefused(RequestRefused.INVALID_PARAMS, "webclient check runs no commands for an agent")

    def terminal_output(self, session_id: str, terminal_id: str) -> TerminalOutput:
        raise RequestRefused(RequestRefused.RESOURCE_NOT_FOUND, "no such terminal")

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str) -> TerminalExit:
        raise RequestRefused(RequestRefused.RESOURCE_NOT_FOUND, "no such terminal")

    def kill_terminal(self, session_id: str, terminal_id: str) -> None:
        raise RequestRefused(RequestRefused.RESOURCE_NOT_FOUND, "no such terminal")

    def release_terminal(self, session_id: str, terminal_id: str) -> None:
        raise RequestRefused(RequestRefused.RESOURCE_NOT_FOUND, "no such terminal")

    def _local(self) -> None:
        if not self.local_tools:
            raise RequestRefused(
                RequestRefused.INVALID_PARAMS, "this client offers no files to a remote agent (localTools)"
            )

    def _line(self, direction: str, text: str, chars: int = LINE_CHARS) -> int:
        numbering = self.numbering
        number = numbering.next
        numbering.next += 1
        cut = text if len(text) <= chars else text[:chars] + "…"
        numbering.lines.append(WireLine(number, self.run, direction, cut))
        if direction == "out" and self.first_out is None:
            self.first_out = number
        return number


def _carries_suggestions(message: dict[str, Any]) -> bool:
    """A session/update with the RFD's update or the legacy `_meta.promptSuggestions`."""
    params = message.get("params")
    update = params.get("update") if isinstance(params, dict) else None
    if not isinstance(update, dict):
        return False
    meta = update.get("_meta")
    legacy = isinstance(meta, dict) and "promptSuggestions" in meta
    return update.get("sessionUpdate") == "prompt_suggestions_update" or legacy
