"""Collect the tags and attributes of an HTML fragment with the stdlib parser, for safety assertions."""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import urlsplit

ACTIVE_TAGS = frozenset(
    {"script", "iframe", "style", "img", "svg", "object", "embed", "frame", "link", "meta", "base", "form"}
)
SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
URL_ATTRIBUTES = frozenset({"href", "src", "action", "formaction", "xlink:href", "srcset", "poster"})


@dataclass(frozen=True)
class Tag:
    name: str
    attrs: dict[str, str | None]


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[Tag] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(Tag(tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def tags(html: str) -> list[Tag]:
    """Every start tag (self-closing ones included) in document order."""
    collector = _Collector()
    collector.feed(html)
    collector.close()
    return collector.tags


def text(html: str) -> str:
    collector = _Collector()
    collector.feed(html)
    collector.close()
    return "".join(collector.text)


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


VOID_ELEMENTS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)


class _Roots(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.roots: list[Tag] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth == 0:
            self.roots.append(Tag(tag, dict(attrs)))
        if tag not in VOID_ELEMENTS:
            self.depth += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth == 0:
            self.roots.append(Tag(tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag not in VOID_ELEMENTS:
            self.depth -= 1


def top_level(html: str) -> list[Tag]:
    """The elements at the root of a fragment: what htmx's ws extension swaps out of band."""
    parser = _Roots()
    parser.feed(html)
    parser.close()
    return parser.roots
