"""A tab's DOM as htmx's WebSocket extension leaves it: frames applied as out-of-band swaps, by element id.

Only what the server's frames use: `outerHTML` (or `true`) replaces the element with the same id,
`innerHTML` its children, and `beforeend:#ID` appends the swapped element's children to the element with
that id; a swap whose target is missing does nothing (htmx reports it and goes on). `html()` serialises an
element the same way whatever markup it came from, so the DOM a tab built from frames compares equal to a
fresh render.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from html.parser import HTMLParser

from tests.support.html import VOID_ELEMENTS


@dataclass
class Node:
    tag: str  # "" for a text node
    attrs: dict[str, str | None] = field(default_factory=dict)
    children: list[Node] = field(default_factory=list)
    text: str = ""

    def html(self) -> str:
        """This element's markup, canonically serialised (attributes in order, text escaped)."""
        if not self.tag:
            return escape(self.text, quote=False)
        attrs = "".join(f" {k}" if v is None else f' {k}="{escape(v)}"' for k, v in self.attrs.items())
        if self.tag in VOID_ELEMENTS:
            return f"<{self.tag}{attrs}>"
        return f"<{self.tag}{attrs}>{''.join(c.html() for c in self.children)}</{self.tag}>"

    def find(self, element_id: str) -> tuple[Node, int, Node] | None:
        """(parent, index, element) of the element with this id below this node."""
        for index, child in enumerate(self.children):
            if child.attrs.get("id") == element_id:
                return self, index, child
            if (found := child.find(element_id)) is not None:
                return found
        return None

    def elements(self) -> list[Node]:
        """Every element below this node, in document order."""
        found: list[Node] = []
        for child in self.children:
            if child.tag:
                found.append(child)
                found.extend(child.elements())
        return found


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#root")
        self._stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, dict(attrs))
        self._stack[-1].children.append(node)
        if tag not in VOID_ELEMENTS:
            self._stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._stack[-1].children.append(Node(tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID_ELEMENTS:
            return
        # Well-formed markup only (ours, and the sanitiser's): the innermost open element closes.
        assert self._stack[-1].tag == tag, f"</{tag}> closes <{self._stack[-1].tag}>"
        self._stack.pop()

    def handle_data(self, data: str) -> None:
        siblings = self._stack[-1].children
        if siblings and not siblings[-1].tag:
            siblings[-1].text += data
        else:
            siblings.append(Node("", text=data))


def parse(html: str) -> Node:
    """`html` as a tree under a root node."""
    builder = _Builder()
    builder.feed(html)
    builder.close()
    assert len(builder._stack) == 1, "an element was left open"
    return builder.root


class Dom:
    """A page's DOM, changed only by the out-of-band swaps of the frames applied to it."""

    def __init__(self, html: str = '<div id="transcript"></div>') -> None:
        self.root = parse(html)

    def apply(self, frame: str) -> None:
        for swapped in parse(frame).children:
            spec = swapped.attrs.pop("hx-swap-oob", None) if swapped.tag else None
            if spec is None:
                continue
            style, _, target = spec.partition(":")
            found = self.root.find(target.removeprefix("#") or str(swapped.attrs.get("id")))
            if found is None:
                continue
            parent, index, element = found
            if style in ("true", "outerHTML"):
                parent.children[index] = swapped
            elif style == "innerHTML":
                element.children = swapped.children
            elif style == "beforeend":
                element.children.extend(swapped.children)
            else:
                raise AssertionError(f"a swap this DOM does not model: {spec}")

    def html(self, element_id: str) -> str | None:
        """The markup of the element with this id (None: there is none)."""
        found = self.root.find(element_id)
        return None if found is None else found[2].html()
