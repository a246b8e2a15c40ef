"""Reading HTML in tests: one parser, for the fragments a view renders and for the page a tab receives.

For a fragment: its start tags (`tags`), the ones at its root (`top_level`, what htmx swaps out of band),
its text, its ids, and every way it could act (`problems`: handlers, htmx attributes, active tags, unsafe
URLs). For a tab: `Page`, what it shows after applying every frame it received, and the predicates a tab's
wait takes (`turn_finished`, `status_is`, `has_notice`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urlsplit

ACTIVE_TAGS = frozenset(
    {"script", "iframe", "style", "img", "svg", "object", "embed", "frame", "link", "meta", "base", "form"}
)
SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
URL_ATTRIBUTES = frozenset({"href", "src", "action", "formaction", "xlink:href", "srcset", "poster"})
# Elements without an end tag: they open nothing, so they do not count towards nesting depth.
VOID_ELEMENTS = frozenset(
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
        "auth-unusable-vars",
        "auth-error",
        "auth-pending",
        "agent-name",
        "session-agent",
        "stored-session",
        "md-done",
        "md-tail",
        "md-append",
        "md-tail-append",
    }
)
# A streamed answer's parts (views/markdown_stream.py, views/streamed.py): finished blocks, appended to,
# and the open tail, replaced or appended to.
_DONE, _TAIL, _APPEND, _TAIL_APPEND = "md-done", "md-tail", "md-append", "md-tail-append"
Attrs = list[tuple[str, str | None]]


class _Nested(HTMLParser):
    """The stdlib parser, keeping count of how deep it is; subclasses hear of each element as it opens
    (`opened`, with the depth it sits at) and as it closes (`closing`)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0

    def handle_starttag(self, tag: str, attrs: Attrs) -> None:
        level = self.depth
        if tag not in VOID_ELEMENTS:
            self.depth += 1
        self.opened(tag, attrs, level)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID_ELEMENTS:
            return
        self.closing(tag)
        self.depth -= 1

    def opened(self, tag: str, attrs: Attrs, level: int) -> None:
        """An element opened at `level` (0: the root); `depth` is already inside it unless it is void."""

    def closing(self, tag: str) -> None:
        """An element is about to close; `depth` is still inside it."""


# -- fragments ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tag:
    name: str
    attrs: dict[str, str | None]


class _Fragment(_Nested):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[Tag, int]] = []  # with the depth each sits at
        self.text: list[str] = []

    def opened(self, tag: str, attrs: Attrs, level: int) -> None:
        self.tags.append((Tag(tag, dict(attrs)), level))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _scan(html: str) -> _Fragment:
    fragment = _Fragment()
    fragment.feed(html)
    fragment.close()
    return fragment


def tags(html: str) -> list[Tag]:
    """Every start tag (self-closing ones included) in document order."""
    return [tag for tag, _ in _scan(html).tags]


def top_level(html: str) -> list[Tag]:
    """The elements at the root of a fragment: what htmx's ws extension swaps out of band."""
    return [tag for tag, level in _scan(html).tags if level == 0]


def text(html: str) -> str:
    return "".join(_scan(html).text)


def ids(html: str) -> list[str]:
    return [str(tag.attrs["id"]) for tag in tags(html) if "id" in tag.attrs]


def problems(html: str, *, allowed_ids: frozenset[str] = frozenset()) -> list[str]:
    """Every way this fragment could act: handlers, htmx/ws attributes, ids, active tags, unsafe URLs."""
    found: list[str] = []
    for tag in tags(html):
        if tag.name in ACTIVE_TAGS:
            found.append(f"<{tag.name}> tag")
        for name, value in tag.attrs.items():
            if name.startswith("on"):
                found.append(f"{name} on <{tag.name}>")
            if name.startswith(("hx-", "data-hx-", "ws-", "data-ws-")):
                found.append(f"{name} on <{tag.name}>")
            if name == "id" and value not in allowed_ids:
                found.append(f"id={value!r} on <{tag.name}>")
            if name in URL_ATTRIBUTES and value is not None:
                scheme = urlsplit(value.strip()).scheme.lower()
                if scheme and scheme not in SAFE_SCHEMES:
                    found.append(f"{name}={value!r} on <{tag.name}>")
    return found


# -- a tab's page ---------------------------------------------------------------------------------------


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
        parser = _PageCollector()
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
            elif element.testid == _TAIL_APPEND:
                target = element.attrs["hx-swap-oob"].removeprefix("beforeend:#").rsplit("-", 1)[0]
                tail[target] = tail.get(target, "") + element.text
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


class _PageCollector(_Nested):
    """The watched elements of a tab's html, each with its text (a message's "who" label left out)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[Element] = []
        self._open: list[tuple[Element, int]] = []  # watched elements still open, with their depth
        self._skip_from: int | None = None  # depth of a message's "who" label, whose text is not content

    def at_rest(self) -> bool:
        """All input consumed, no element open: parsing more html goes on as a fresh parser would."""
        return not self.rawdata and self.depth == 0 and not self._open and self._skip_from is None

    def opened(self, tag: str, attrs: Attrs, level: int) -> None:
        values = _marked({k: v or "" for k, v in attrs})
        watched = values.get("data-testid") in _WATCHED
        if tag in VOID_ELEMENTS:
            if watched:
                self.found.append(Element(values["data-testid"], values))
            return
        if self._skip_from is None and (tag == "summary" or "who" in values.get("class", "").split()):
            self._skip_from = self.depth
        if watched:
            element = Element(values["data-testid"], values)
            self.found.append(element)
            self._open.append((element, self.depth))

    def closing(self, tag: str) -> None:
        if self._open and self._open[-1][1] == self.depth:
            self._open.pop()
        if self._skip_from == self.depth:
            self._skip_from = None

    def handle_data(self, data: str) -> None:
        if self._skip_from is not None:
            return
        for element, _ in self._open:
            element.text += data


def _marked(values: dict[str, str]) -> dict[str, str]:
    """`values`, with a streamed answer's parts marked by test id (they are known by class)."""
    classes = values.get("class", "").split()
    if _DONE in classes or _TAIL in classes:
        values["data-testid"] = _DONE if _DONE in classes else _TAIL
    elif values.get("hx-swap-oob", "").startswith("beforeend:#") and values["hx-swap-oob"].endswith("-done"):
        values["data-testid"] = _APPEND
    elif values.get("hx-swap-oob", "").startswith("beforeend:#") and values["hx-swap-oob"].endswith("-tail"):
        values["data-testid"] = _TAIL_APPEND
    return values


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


def element_by_id(html: str, element_id: str) -> str | None:
    """The markup of the `<div id=...>` with that id, start tag to its matching end tag, as served."""
    start = html.find(f'<div id="{element_id}"')
    if start < 0:
        return None
    depth = 0
    for match in re.finditer(r"<(/?)div\b", html[start:]):
        depth += -1 if match.group(1) else 1
        if depth == 0:
            end = start + match.start()
            return html[start : html.index(">", end) + 1]
    return None


class _Frames(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: dict[tuple[str, str, str], str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if tag == "iframe" and "srcdoc" in values:
            key = (values.get("data-style", ""), values.get("data-layout", ""), values.get("data-scheme", ""))
            self.found[key] = values["srcdoc"]


def frame_documents(html: str) -> dict[tuple[str, str, str], str]:
    """Each iframe's srcdoc document, by its (style, layout, scheme) data attributes."""
    parser = _Frames()
    parser.feed(html)
    return parser.found


def unnumbered(frame: str) -> str:
    """A live frame without the header that numbers it (`webclient/views/live_sync.py`)."""
    return re.sub(r"^<!--[^>]*-->", "", frame)
