"""Agent Markdown becomes inert HTML: nothing it sends can run, swap into the page or fetch on render."""

from __future__ import annotations

import pytest

from tests.support.html import problems, tags, text
from webclient.views.markdown import render_markdown, sanitize

HOSTILE = {
    "script tag": "<script>alert(1)</script>",
    "img onerror": "<img src=x onerror=alert(1)>",
    "javascript inline link": "[click](javascript:alert(1))",
    "javascript mixed case": "[click](JaVaScRiPt:alert(1))",
    "javascript entity-encoded": "[click](&#106;avascript:alert(1))",
    "javascript reference link": "[click][evil]\n\n[evil]: javascript:alert(1)",
    "javascript autolink": "<javascript:alert(1)>",
    "vbscript link": "[click](vbscript:msgbox(1))",
    "raw anchor with javascript": '<a href="javascript:alert(1)">click</a>',
    "hx-post": '<div hx-post="/prompt" hx-trigger="load">x</div>',
    "hx-get": '<button hx-get="/secret" hx-target="body">x</button>',
    "hx-swap-oob": '<div hx-swap-oob="innerHTML:#transcript">gone</div>',
    "composer takeover": '<textarea id="composer" hx-swap-oob="true">evil</textarea>',
    "ws-send form": '<form ws-send><input name="action" value="restart"></form>',
    "iframe": '<iframe src="https://evil.example"></iframe>',
    "style": "<style>body { display: none }</style>",
    "svg onload": "<svg onload=alert(1)><circle r=1 /></svg>",
    "data html link": "[x](data:text/html,<script>alert(1)</script>)",
    "data html reference link": "[x][d]\n\n[d]: data:text/html;base64,PHNjcmlwdD4=",
    "remote image": "![beacon](https://evil.example/track.png)",
    "javascript image": "![x](javascript:alert(1))",
    "data svg image": "![x](data:image/svg+xml,<svg onload=alert(1)>)",
    "data png image": "![x](data:image/png;base64,iVBORw0KGgo=)",
    "html comment": "<!-- <script>alert(1)</script> -->",
    "onclick in table": "| a |\n|---|\n| <b onclick=alert(1)>x</b> |",
}


@pytest.mark.parametrize("source", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_markdown_renders_without_anything_that_can_act(source: str) -> None:
    html = render_markdown(source)
    assert problems(html) == []


@pytest.mark.parametrize("source", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_html_passed_straight_to_the_sanitiser_is_also_inert(source: str) -> None:
    # Defence in depth: even if the Markdown step let raw HTML through, the allowlist would stop it.
    assert problems(sanitize(source)) == []


def test_raw_html_in_markdown_is_shown_as_text() -> None:
    html = render_markdown("<script>alert(1)</script>")
    assert [t.name for t in tags(html)] == ["p"]
    assert text(html).strip() == "<script>alert(1)</script>"


def test_remote_markdown_image_becomes_a_link_not_an_image() -> None:
    html = render_markdown("![beacon](https://evil.example/track.png)")
    found = tags(html)
    assert "img" not in [t.name for t in found]
    links = [t for t in found if t.name == "a"]
    assert [link.attrs["href"] for link in links] == ["https://evil.example/track.png"]
    assert "[image: beacon]" in text(html)


def test_image_with_data_url_keeps_no_href() -> None:
    html = render_markdown("![x](data:image/png;base64,iVBORw0KGgo=)")
    assert all("href" not in t.attrs for t in tags(html) if t.name == "a")
    assert "data:" not in html


def test_javascript_link_keeps_its_text_but_loses_the_link() -> None:
    html = render_markdown("[click me](javascript:alert(1))")
    assert [t.name for t in tags(html) if t.name == "a"] == []
    assert "click me" in text(html)


@pytest.mark.parametrize(
    "source, href",
    [
        ("[site](https://example.com/a?b=1)", "https://example.com/a?b=1"),
        ("[site](http://example.com)", "http://example.com"),
        ("<https://example.com>", "https://example.com"),
        ("[mail](mailto:dev@example.com)", "mailto:dev@example.com"),
    ],
)
def test_safe_links_survive_with_a_noopener_rel(source: str, href: str) -> None:
    links = [t for t in tags(render_markdown(source)) if t.name == "a"]
    assert [link.attrs["href"] for link in links] == [href]
    assert set(str(links[0].attrs["rel"]).split()) == {"noopener", "noreferrer", "nofollow"}


def test_ordinary_markdown_keeps_its_structure() -> None:
    source = (
        "# Title\n\n**bold** *em* ~~gone~~ `code`\n\n- one\n- two\n\n3. three\n\n> quote\n\n```\nx < y\n```"
    )
    names = [t.name for t in tags(render_markdown(source))]
    for expected in ("h1", "strong", "em", "s", "code", "ul", "li", "ol", "blockquote", "pre"):
        assert expected in names
    assert next(t for t in tags(render_markdown(source)) if t.name == "ol").attrs["start"] == "3"


def test_tables_render_without_inline_styles() -> None:
    html = render_markdown("| a | b |\n|:--|--:|\n| 1 | 2 |")
    cells = [t for t in tags(html) if t.name in {"th", "td"}]
    assert len(cells) == 4
    assert all(set(cell.attrs) <= {"align"} for cell in cells)
    assert problems(html) == []


def test_code_block_content_is_escaped_not_parsed() -> None:
    html = render_markdown("```html\n<script>alert(1)</script>\n```")
    assert "script" not in [t.name for t in tags(html)]
    assert "<script>alert(1)</script>" in text(html)


def test_render_markdown_returns_markup_that_jinja_will_not_escape_again() -> None:
    html = render_markdown("**x**")
    assert hasattr(html, "__html__")
    assert "<strong>x</strong>" in str(html)


def test_the_safety_probe_itself_flags_every_kind_of_active_markup() -> None:
    # Guards the assertions above against passing vacuously.
    html = (
        '<a href="javascript:x" onclick="y">a</a><div id="composer" hx-swap-oob="true" ws-send></div>'
        '<img src="https://e.x/a.png"><a href="data:text/html,x">b</a><a href="/relative">c</a>'
    )
    found = problems(html)
    assert len(found) == 7
    assert any("onclick" in p for p in found)
    assert any("javascript:" in p for p in found)
    assert any("hx-swap-oob" in p for p in found)
    assert any("ws-send" in p for p in found)
    assert any("'composer'" in p for p in found)
    assert any("<img>" in p for p in found)
    assert any("data:text/html" in p for p in found)


def test_text_past_the_markdown_limit_is_shown_escaped_as_it_is() -> None:
    from webclient.views.markdown import MAX_MARKDOWN_CHARS

    hostile = '<script>alert(1)</script><div hx-get="/x" id="composer">*not emphasis*</div>'
    html = str(render_markdown(hostile + "x" * MAX_MARKDOWN_CHARS))
    assert problems(html) == []
    assert "&lt;script&gt;" in html
    assert "<em>" not in html
    assert html.startswith("<pre")


def test_text_past_the_markdown_limit_is_a_box_a_keyboard_can_scroll() -> None:
    from webclient.views.markdown import MAX_MARKDOWN_CHARS

    opening = str(render_markdown("x" * (MAX_MARKDOWN_CHARS + 1))).split(">", 1)[0]
    assert 'tabindex="0"' in opening
    assert 'aria-label="' in opening


def test_a_code_block_takes_focus_so_a_keyboard_can_scroll_it_sideways() -> None:
    html = str(render_markdown("Here:\n\n```\n" + "x" * 300 + "\n```\n\nand `inline`."))
    assert html.count('<pre tabindex="0">') == 1
    assert "<code>inline</code>" in html  # inline code is no tab stop
    # An agent cannot add attributes of its own to a block: its HTML is text.
    hostile = str(render_markdown('<pre tabindex="5" onfocus="x()">hi</pre>'))
    assert [t.name for t in tags(hostile)] == ["p"] and "&lt;pre" in hostile
