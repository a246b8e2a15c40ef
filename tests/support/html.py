"""Reading HTML in tests: the fragments a view renders, and the page a tab shows.

For a fragment, the markup as served, read by the standard library's tokenizer (a DOM parser would mend
it first): its start tags (`tags`), the ones at its root (`top_level`, what htmx swaps out of band), its
text, its ids, and every way it could act (`problems`: handlers, htmx attributes, active tags, unsafe
URLs). For a tab: `Page`, a real DOM (lxml) with every frame it received swapped in as htmx swaps it, and
the predicates a tab's wait takes (`turn_finished`, `status_is`, `has_notice`); `Frames`, the same page
built one frame at a time, for tabs that receive too much to join it for every check.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable
from copy import deepcopy
from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import urlsplit

import lxml.html
from lxml.html import HtmlElement

ACTIVE_TAGS = frozenset(
    {"script", "iframe", "style", "img", "svg", "object", "embed", "frame", "link", "meta", "base", "form"}
)
SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
URL_ATTRIBUTES = frozenset({"href", "src", "action", "formaction", "xlink:href", "srcset", "poster"})
# Elements without an end tag: they open nothing, so they do not count towards nesting depth.
VOID_ELEMENTS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)
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


class Page:
    """What a tab shows after applying every frame it received, as htmx does: on a real DOM (lxml).

    Each element at the root of a frame is an out-of-band swap (htmx's WebSocket extension swaps every
    one): `hx-swap-oob="outerHTML"` (or none, or `true`) replaces the element with its id, `innerHTML`
    replaces that element's children, `beforeend:#ID` appends its children to the element with that
    id. An element whose target the page does not have yet (a tab's first snapshot builds the page) is
    added at the end of the page. A whole document (`<html>`) is read as it is.
    """

    def __init__(self, root: HtmlElement) -> None:
        self._root = root

    @classmethod
    def parse(cls, html: str) -> Page:
        """The page a tab shows after `html` (every frame it received, in order).

        Waits parse all of a tab's html after every frame; a tab's html only grows, so the DOM of the last
        parse is taken on when `html` starts with what it parsed (whole frames), and only the rest is
        applied: re-applying everything made waits quadratic in a long answer's length.
        """
        global _last_parse
        if _last_parse is not None and _last_parse[0] and html.startswith(_last_parse[0]):
            done, root, handed = _last_parse
            if len(html) > len(done):
                # The pages someone still holds keep showing what they showed.
                held = list(handed)
                if held:
                    kept = deepcopy(root)
                    for earlier in held:
                        earlier._root = kept
                handed = weakref.WeakSet()
                _apply(root, html[len(done) :])
        else:
            root, handed = _document(html), weakref.WeakSet()
        page = cls(root)
        handed.add(page)
        _last_parse = (html, root, handed)
        return page

    def values(self, testid: str, attribute: str) -> list[str]:
        """The `attribute` of each element with `testid` on the page, in page order."""
        return [e.get(attribute, "") for e in self._with(testid)]

    def _with(self, testid: str) -> list[HtmlElement]:
        return list(self._root.iterfind(f".//*[@data-testid='{testid}']"))

    def _one(self, testid: str) -> HtmlElement | None:
        found = self._with(testid)
        return found[-1] if found else None

    @property
    def status(self) -> str | None:
        badge = self._one("agent-status")
        return None if badge is None else badge.get("data-state")

    @property
    def auth_methods(self) -> list[tuple[str, str]]:
        """(method id, label) of each sign-in choice the auth region currently offers."""
        region = self._one("auth")
        if region is None:
            return []
        methods = region.iterfind(".//*[@data-testid='auth-method']")
        return [(m.get("data-method-id", ""), _text(m).strip()) for m in methods]

    def in_auth(self, testid: str) -> list[Element]:
        """The elements with `testid` inside the auth region as it is now (none while it is hidden)."""
        region = self._one("auth")
        if region is None or region.get("hidden") is not None:
            return []
        return [_element(e) for e in region.iterfind(f".//*[@data-testid='{testid}']")]

    def latest_text(self, testid: str) -> str:
        """The text of the last element with `testid` on the page."""
        found = self._one(testid)
        return "" if found is None else _text(found).strip()

    @property
    def notices(self) -> list[str]:
        """The text (and detail) of each notice, in page order."""
        return [_text(e) for e in self._with("notice")]

    def notices_with(self, text: str) -> list[str]:
        return [n for n in self.notices if text in n]

    def notice_counts(self, text: str) -> list[int]:
        """How often each notice containing `text` was repeated (its count badge; 1 without one)."""
        counts = (re.search(r"\u00d7(\d+)", n) for n in self.notices_with(text))
        return [int(c.group(1)) if c else 1 for c in counts]

    def notice_count(self, text: str) -> int:
        """How many notices containing `text` arrived: ones of a kind in a row show as one, counted."""
        shown = [e for e in self._with("notice") if text in _text(e)]
        return sum(int(e.get("data-count", "1")) for e in shown)

    @property
    def messages(self) -> list[tuple[str, str]]:
        """(role, text) of each transcript message, in order: a streamed answer's finished blocks and its
        open tail as the swaps left them; the "who" label and a thought's summary are not its text."""
        return [(e.get("data-role", ""), _text(e, skip=_LABELS).strip()) for e in self._with("message")]

    def texts(self, role: str) -> list[str]:
        return [text for r, text in self.messages if r == role]

    @property
    def agent_text(self) -> str:
        return "\n".join(self.texts("agent"))


class Frames:
    """The page a tab shows, built as its frames arrive: each frame is swapped in once, as `Page.parse`
    would swap it, and the html received is never joined. A flood sends a tab hundreds of MB; joining it
    all for every check made a wait quadratic (10 of a flood test's 20 CPU-s went to joining).

    `page` is the page as it is now, and keeps changing with the frames added after it was taken.
    """

    def __init__(self) -> None:
        self._root: HtmlElement | None = None

    def add(self, frame: str) -> None:
        if self._root is None:
            self._root = _document(frame)
        else:
            _apply(self._root, frame)

    @property
    def page(self) -> Page:
        return Page(_document("") if self._root is None else self._root)


# The html of the last parse, its page, and the Pages handed out on that page.
_last_parse: tuple[str, HtmlElement, weakref.WeakSet[Page]] | None = None
# A message's parts that label it rather than say it.
_LABELS = "self::summary or contains(concat(' ', normalize-space(@class), ' '), ' who ')"


def _document(html: str) -> HtmlElement:
    if re.match(r"\s*(<!doctype|<html)", html, re.IGNORECASE):
        return lxml.html.document_fromstring(html)
    root = lxml.html.fragment_fromstring("<div></div>")
    _apply(root, html)
    return root


def _apply(root: HtmlElement, html: str) -> None:
    """Swap each element at the root of `html` into the page `root`, as htmx's out-of-band swaps do."""
    if not html.strip():
        return
    frame = lxml.html.fragment_fromstring(html, create_parent="div")
    for swap in [child for child in frame if isinstance(child.tag, str)]:
        how = swap.attrib.pop("hx-swap-oob", "outerHTML")
        where, _, selector = how.partition(":")
        target_id = selector.removeprefix("#") if selector else swap.get("id")
        found = root.get_element_by_id(target_id, None) if target_id else None
        if where == "beforeend":
            if found is not None:
                found.extend(list(swap))
                _join_text(found, swap.text)
        elif found is None:
            root.append(swap)
        elif where == "innerHTML":
            attrs = dict(found.attrib)
            found.clear(keep_tail=True)
            found.attrib.update(attrs)
            found.text = swap.text
            found.extend(list(swap))
        else:  # outerHTML, true
            swap.tail = found.tail
            parent = found.getparent()
            assert parent is not None  # the page's root is never swapped out
            parent.replace(found, swap)


def _join_text(target: HtmlElement, text: str | None) -> None:
    """Text at the start of an appended fragment goes after what the target holds."""
    if not text:
        return
    children = list(target)
    if children:
        children[-1].tail = (children[-1].tail or "") + text
    else:
        target.text = (target.text or "") + text


def _text(element: HtmlElement, *, skip: str | None = None) -> str:
    """The text inside `element`, leaving out the subtrees that match the XPath test `skip`."""
    if skip is None:
        return element.text_content()
    parts: list[str] = []

    def walk(node: HtmlElement) -> None:
        parts.append(node.text or "")
        for child in node:
            if isinstance(child.tag, str) and not child.xpath(skip):
                walk(child)
            parts.append(child.tail or "")

    walk(element)
    return "".join(parts)


def _element(found: HtmlElement) -> Element:
    attrs = {k: v or "" for k, v in found.attrib.items()}
    return Element(attrs.get("data-testid", ""), attrs, _text(found))


def turn_finished(prompt: str) -> Callable[[str], bool]:
    """A `Tab.wait_for` predicate: the prompt is in the transcript and the agent is ready again.

    The user message and the "working" status are marked together, so a frame that carries the message
    never carries the stale "ready" from before the turn.
    """

    return lambda html: finished(Page.parse(html), prompt)


def finished(page: Page, prompt: str) -> bool:
    """`turn_finished` on a page: the prompt is in its transcript and its agent is ready again."""
    return prompt in page.texts("user") and page.status == "ready"


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
