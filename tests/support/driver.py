"""Helpers for the integration tests: read what a tab received, poll with deadlines, watch processes."""

from __future__ import annotations

import asyncio
import copy
import re
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from tests.live import AGENTS
from webclient.acp.models import AgentStatus, ContentPart
from webclient.acp.translate import Translation
from webclient.acp.wire_log import WireLog
from webclient.domain.changes import PendingChanges
from webclient.domain.registry import SessionRegistry
from webclient.domain.state import SessionState
from webclient.domain.supervisor import AgentSupervisor
from webclient.errors import Refused
from webclient.settings import Settings

# Elements without an end tag: they must not count towards nesting depth.
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)
_WATCHED = frozenset(
    {
        "notice",
        "message",
        "agent-status",
        "auth",
        "auth-method",
        "auth-env",
        "auth-var",
        "auth-command",
        "auth-error",
        "auth-pending",
        "agent-name",
        "session-agent",
        "stored-session",
        "md-done",
        "md-tail",
        "md-append",
    }
)
# A streamed answer's parts (views/markdown_stream.py): finished blocks, appended to, and the open tail.
_DONE, _TAIL, _APPEND = "md-done", "md-tail", "md-append"


def agent_argv(name: str, *args: str) -> list[str]:
    """The argv of a scripted agent in tests/agents/."""
    return [sys.executable, str(AGENTS / f"{name}.py"), *args]


@dataclass
class Element:
    testid: str
    attrs: dict[str, str]
    text: str = ""


@dataclass
class Page:
    """What a tab shows after applying every frame it received, read from the accumulated HTML.

    Frames are out-of-band swaps by element id, so the last occurrence of an id is its current markup.
    """

    elements: list[Element] = field(default_factory=list)

    @classmethod
    def parse(cls, html: str) -> Page:
        """Parse `html`; a tab's html only grows, so a parse resumes where the last one could stop.

        Waits parse all of a tab's html after every frame; re-reading it whole made that quadratic (a
        300 MiB transcript took longer to parse than to stream). The elements found in the last parse are
        reused when `html` starts with what it parsed and that ended with every element closed: the
        concatenation parses to the same elements then.
        """
        global _last_parse
        start, found = 0, []
        if _last_parse is not None and html.startswith(_last_parse[0]):
            start, found = len(_last_parse[0]), list(_last_parse[1])
        parser = _Collector()
        parser.feed(html[start:] if start else html)
        at_rest = parser.at_rest()
        parser.close()
        found += parser.found
        _last_parse = (html, tuple(found)) if at_rest else None
        return cls(found)

    def _latest(self, testid: str) -> dict[str, Element]:
        latest: dict[str, Element] = {}
        for element in self.elements:
            if element.testid == testid:
                latest[element.attrs.get("id", str(len(latest)))] = element
        return latest

    @property
    def status(self) -> str | None:
        states = [e.attrs.get("data-state") for e in self.elements if e.testid == "agent-status"]
        return states[-1] if states else None

    @property
    def auth_methods(self) -> list[tuple[str, str]]:
        """(method id, label) of each sign-in choice the auth region currently offers."""
        regions = [i for i, e in enumerate(self.elements) if e.testid == "auth"]
        if not regions:
            return []
        inside = self.elements[regions[-1] + 1 :]
        methods = [e for e in inside if e.testid == "auth-method"]
        return [(e.attrs.get("data-method-id", ""), e.text.strip()) for e in methods]

    def in_auth(self, testid: str) -> list[Element]:
        """The elements with `testid` inside the auth region as it is now (none while it is hidden)."""
        regions = [i for i, e in enumerate(self.elements) if e.testid == "auth"]
        if not regions or "hidden" in self.elements[regions[-1]].attrs:
            return []
        after = self.elements[regions[-1] + 1 :]
        end = next((i for i, e in enumerate(after) if e.testid == "auth"), len(after))
        return [e for e in after[:end] if e.testid == testid]

    def latest_text(self, testid: str) -> str:
        """The text of the last element with `testid` (a region re-rendered replaces the earlier one)."""
        found = [e for e in self.elements if e.testid == testid]
        return found[-1].text.strip() if found else ""

    @property
    def notices(self) -> list[str]:
        """The text (and detail) of each distinct notice, in order of appearance."""
        return [e.text for e in self._latest("notice").values()]

    def notices_with(self, text: str) -> list[str]:
        return [n for n in self.notices if text in n]

    def notice_counts(self, text: str) -> list[int]:
        """How often each notice containing `text` was repeated (its count badge; 1 without one)."""
        counts = (re.search(r"\u00d7(\d+)", n) for n in self.notices_with(text))
        return [int(c.group(1)) if c else 1 for c in counts]

    def notice_count(self, text: str) -> int:
        """How many notices containing `text` arrived: ones of a kind in a row show as one, counted."""
        shown = [e for e in self._latest("notice").values() if text in e.text]
        return sum(int(e.attrs.get("data-count", "1")) for e in shown)

    @property
    def messages(self) -> list[tuple[str, str]]:
        """(role, text) of each transcript message, in order, with its latest text.

        A streamed answer's latest text is its finished blocks (as last rendered whole, plus every piece
        appended since) followed by its latest open tail.
        """
        done: dict[str, str] = {}
        tail: dict[str, str] = {}
        for element in self.elements:
            owner = element.attrs.get("id", "").rsplit("-", 1)[0]
            if element.testid == "message":
                done.pop(element.attrs.get("id", ""), None)
            elif element.testid == _DONE:
                done[owner] = element.text
            elif element.testid == _TAIL:
                tail[owner] = element.text
            elif element.testid == _APPEND:
                target = element.attrs["hx-swap-oob"].removeprefix("beforeend:#").rsplit("-", 1)[0]
                done[target] = done.get(target, "") + element.text
        latest = self._latest("message")
        return [
            (e.attrs.get("data-role", ""), (done[i] + tail.get(i, "") if i in done else e.text).strip())
            for i, e in latest.items()
        ]

    def texts(self, role: str) -> list[str]:
        return [text for r, text in self.messages if r == role]

    @property
    def agent_text(self) -> str:
        return "\n".join(self.texts("agent"))


# The html of the last parse and the elements it found, when that html ended between elements.
_last_parse: tuple[str, tuple[Element, ...]] | None = None


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[Element] = []
        self._open: list[tuple[Element, int]] = []  # watched elements still open, with their depth
        self._depth = 0
        self._skip_from: int | None = None  # depth of a message's "who" label, whose text is not content

    def at_rest(self) -> bool:
        """All input consumed, no element open: parsing more html goes on as a fresh parser would."""
        return not self.rawdata and self._depth == 0 and not self._open and self._skip_from is None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        classes = values.get("class", "").split()
        if _DONE in classes or _TAIL in classes:
            values["data-testid"] = _DONE if _DONE in classes else _TAIL
        elif values.get("hx-swap-oob", "").startswith("beforeend:#") and values["hx-swap-oob"].endswith(
            "-done"
        ):
            values["data-testid"] = _APPEND
        if tag in _VOID:
            if values.get("data-testid") in _WATCHED:
                self.found.append(Element(values["data-testid"], values))
            return
        self._depth += 1
        if self._skip_from is None and (tag == "summary" or "who" in values.get("class", "").split()):
            self._skip_from = self._depth
        if values.get("data-testid") in _WATCHED:
            element = Element(values["data-testid"], values)
            self.found.append(element)
            self._open.append((element, self._depth))

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        if self._open and self._open[-1][1] == self._depth:
            self._open.pop()
        if self._skip_from == self._depth:
            self._skip_from = None
        self._depth -= 1

    def handle_data(self, data: str) -> None:
        if self._skip_from is not None:
            return
        for element, _ in self._open:
            element.text += data


def turn_finished(prompt: str) -> Callable[[str], bool]:
    """A `Tab.wait_for` predicate: the prompt is in the transcript and the agent is ready again.

    The user message and the "working" status are marked together, so a frame that carries the message
    never carries the stale "ready" from before the turn.
    """

    def check(html: str) -> bool:
        page = Page.parse(html)
        return prompt in page.texts("user") and page.status == "ready"

    return check


def status_is(status: str) -> Callable[[str], bool]:
    """A `Tab.wait_for` predicate: the status badge now says `status`."""
    return lambda html: Page.parse(html).status == status


def has_notice(text: str) -> Callable[[str], bool]:
    """A `Tab.wait_for` predicate: a notice containing `text` is shown."""
    return lambda html: bool(Page.parse(html).notices_with(text))


async def eventually(predicate: Callable[[], bool], timeout: float = 10.0, what: str = "condition") -> None:
    """Poll `predicate` until it holds; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(0.01)


def pid_alive(pid: int) -> bool:
    """True while the process exists and is not a zombie waiting to be reaped by someone else."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    state = stat.rsplit(")", 1)[1].split()[0]
    return state not in ("Z", "X")


def reaped(pid: int) -> bool:
    """True once the process is gone for good: exited and waited for by its parent (no zombie left)."""
    return not Path(f"/proc/{pid}").exists()


def children_of(pid: int) -> list[int]:
    """The pids whose parent is `pid` (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


async def read_pids(path: Path, count: int, timeout: float = 10.0) -> list[int]:
    """The pids a scripted agent wrote to `path`, once it wrote all `count` of them."""

    def ready() -> bool:
        return path.exists() and len(path.read_text().split()) == count

    await eventually(ready, timeout, f"{count} pid(s) in {path}")
    return [int(p) for p in path.read_text().split()]


class Harness:
    """A started `SessionRegistry` with a real agent subprocess, and the session a test drives.

    The methods mirror what a tab asks for; where the domain refuses (`Refused`), they return its
    message instead, so a test can assert both outcomes.
    """

    def __init__(self, settings: Settings) -> None:
        self.registry = SessionRegistry(settings, PendingChanges.factory, WireLog())
        self.current = self.registry.most_recent()
        self.own_session_only = False

    @property
    def wire_log(self) -> list[tuple[str, dict[str, Any]]]:
        """Every JSON-RPC message the protocol inspector keeps, each agent's in wire order; for a view
        (`new_view`), only the messages naming its current session (requests and notifications)."""
        logs = {id(route.wire_log): route.wire_log for route in self.registry.agents.values()}
        messages = [m for log in logs.values() for m in log.messages()]
        if not self.own_session_only:
            return messages
        return [(d, m) for d, m in messages if _session_named(m) == self.state.session_id]

    @property
    def workspace(self) -> Path:
        return self.registry.settings.cwd

    async def new_view(self, timeout: float = 30.0) -> Harness:
        """A new session on this harness's registry, open and ready, as a harness of its own.

        For a module whose tests share one agent: each test drives a session of its own, and its
        `wire_log` shows only what names that session. The caller closes it (`close`).
        """
        view = copy.copy(self)
        view.current = self.registry.new_session()
        view.own_session_only = True
        await eventually(
            lambda: view.state.session_id is not None and view.state.agent_status is AgentStatus.READY,
            timeout,
            "a new session",
        )
        return view

    async def close(self) -> None:
        """Close the session this harness drives (the agent answers `session/close` first)."""
        await self.registry.close(self.current.local_id)

    @property
    def state(self) -> SessionState:
        return self.current.state

    @property
    def supervisor(self) -> AgentSupervisor:
        return self.registry.supervisor

    async def start(self) -> None:
        await self.registry.start()

    async def shutdown(self) -> None:
        await self.registry.shutdown()

    async def restart(self) -> None:
        await self.registry.restart()

    def on_update(self, translation: Translation) -> None:
        self.registry.on_update(translation)

    def submit_prompt(self, parts: list[ContentPart], **kwargs: Any) -> str | None:
        return _refusal(lambda: self.current.submit_prompt(parts, **kwargs))

    def send_suggestion(self, generation: int, index: int, *, auto_sent: bool = False) -> str | None:
        return _refusal(lambda: self.current.send_suggestion(generation, index, auto_sent=auto_sent))

    async def cancel(self) -> str | None:
        try:
            await self.current.cancel()
        except Refused as exc:
            return str(exc)
        return None

    async def load_session(self, session_id: str, *, resume: bool = False) -> str | None:
        """Open a stored session; on success it becomes the session this harness drives."""
        try:
            self.current = await self.registry.open_stored(session_id, resume=resume)
        except Refused as exc:
            return str(exc)
        return None


def _session_named(message: dict[str, Any]) -> Any:
    params = message.get("params")
    return params.get("sessionId") if isinstance(params, dict) else None


def _refusal(action: Callable[[], object]) -> str | None:
    try:
        action()
    except Refused as exc:
        return str(exc)
    return None


@asynccontextmanager
async def started(settings: Settings, ready_within: float = 30.0) -> AsyncIterator[Harness]:
    """A started harness whose agent is ready (or exited: the test then sees why); shut down after."""
    harness = Harness(settings)
    await harness.start()
    try:
        await eventually(
            lambda: harness.state.agent_status in (AgentStatus.READY, AgentStatus.EXITED),
            ready_within,
            "the agent to be ready",
        )
        yield harness
    finally:
        await harness.shutdown()
