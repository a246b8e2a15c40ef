"""Agent text to safe HTML: Markdown with raw HTML disabled, then an allowlist sanitiser.

Agent output is untrusted (it can be steered by any file the agent read), so nothing it sends may carry
scripts, event handlers, `javascript:` URLs, htmx attributes or ids that could swap into the page.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import nh3
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markupsafe import Markup, escape

from webclient.text_controls import strip_controls

ALLOWED_TAGS = frozenset(
    {
        "p",
        "br",
        "hr",
        "strong",
        "em",
        "del",
        "s",
        "code",
        "pre",
        "blockquote",
        "ul",
        "ol",
        "li",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "a",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
    }
)
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"align"}, "td": {"align"}}
ALLOWED_URL_SCHEMES = frozenset({"http", "https", "mailto"})
# Past this size a piece of text is shown as it is, escaped, instead of as Markdown: the Markdown parser
# and the sanitiser take ~40 ms per 1 MB, on the event loop that serves every tab, and nobody reads a
# megabyte blob as formatted prose. Streamed answers are rendered a block at a time, so a long answer
# made of many blocks stays Markdown; only one huge block (a 5 MB chunk without a blank line) is plain.
MAX_MARKDOWN_CHARS = 200_000
# Such text scrolls sideways (it keeps its lines), so it takes focus and a name: a keyboard can scroll it.
PLAIN_TEXT = Markup('<pre class="plain-text" tabindex="0" aria-label="Long text, shown as written">{}</pre>')


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable(["table", "strikethrough"])
    md.add_render_rule("image", _image_as_link)
    return md


def _image_as_link(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    # An agent's image would be fetched by the browser the moment it renders (a beacon to any host);
    # show it as a link the user may follow instead. The sanitiser still checks the URL's scheme.
    token = tokens[idx]
    alt = escapeHtml(token.content or "image")
    src = escapeHtml(str(token.attrGet("src") or ""))
    return f'<a href="{src}">[image: {alt}]</a>'


def sanitize(html: str) -> str:
    """Keep only the allowlisted tags and attributes; links open nothing on their own."""
    return str(
        nh3.clean(
            html,
            tags=set(ALLOWED_TAGS),
            attributes={tag: set(attrs) for tag, attrs in ALLOWED_ATTRIBUTES.items()},
            url_schemes=set(ALLOWED_URL_SCHEMES),
            link_rel="noopener noreferrer nofollow",
            strip_comments=True,
        )
    )


def render_markdown(text: str) -> Markup:
    """Render untrusted Markdown to HTML that is safe to put into the page (huge text: escaped, as is).

    Terminal control sequences (an agent's colours) are removed first: a page cannot show them."""
    text = strip_controls(text)
    if len(text) > MAX_MARKDOWN_CHARS:
        return PLAIN_TEXT.format(escape(text))
    return Markup(_focusable_code(sanitize(_parser().render(text))))


def _focusable_code(html: str) -> str:
    """A code block keeps its lines and so may scroll sideways (on a phone, most do): it takes focus, so a
    keyboard can scroll it. Added after sanitising, to `<pre>` tags the sanitiser left without attributes."""
    return html.replace("<pre>", '<pre tabindex="0">')
