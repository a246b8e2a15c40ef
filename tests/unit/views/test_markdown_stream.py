"""Streaming Markdown: where an answer's finished blocks end; rendering them in pieces changes nothing."""

from __future__ import annotations

import pytest

from tests.support.html import problems
from webclient.acp.models import ImagePart, TextPart
from webclient.domain.items import MessageItem
from webclient.views.markdown import render_markdown
from webclient.views.markdown_stream import BlockScanner, finished_end, split, streamed_text

ANSWER = """# Plan

First paragraph with *emphasis* and `code`.

- one
- two

- three, still the same list

1. first
2. second

```python
print("a")

print("b, after a blank line inside the fence")
```

> a quote

| a | b |
|---|---|
| 1 | 2 |

Closing words.
"""


def test_nothing_is_finished_until_a_later_block_begins() -> None:
    assert finished_end("A paragraph.") == 0
    assert finished_end("A paragraph.\n\n") == 0
    assert finished_end("A paragraph.\n\nN") == len("A paragraph.\n\n")


def test_a_blank_line_inside_a_fenced_code_block_is_not_a_split() -> None:
    text = "```\ncode\n\nmore code\n"
    assert finished_end(text) == 0
    assert finished_end(text + "```\n\nAfter") == len(text + "```\n\n")


@pytest.mark.parametrize("next_line", ["- b", "* b", "+ b", "2. b", "2) b", "3", "-", "  indented"])
def test_a_line_that_may_continue_the_block_above_is_not_a_split(next_line: str) -> None:
    assert finished_end(f"- a\n\n{next_line}") == 0


def test_scanning_from_an_earlier_result_finds_what_a_full_scan_finds_at_every_length() -> None:
    start = 0
    scanner = BlockScanner()
    for length in range(len(ANSWER) + 1):
        text = ANSWER[:length]
        start = finished_end(text, start)
        assert start == finished_end(text) == scanner.advance(text), length


def test_finished_blocks_rendered_in_the_pieces_they_finished_in_equal_one_rendering() -> None:
    pieces = []
    start = 0
    scanner = BlockScanner()
    for length in range(0, len(ANSWER) + 1, 7):
        end = scanner.advance(ANSWER[:length])
        if end > start:
            pieces.append(str(render_markdown(ANSWER[start:end])))
        start = end
    assert start > 0
    assert "".join(pieces) == str(render_markdown(ANSWER[:start]))
    whole = split(ANSWER)
    assert whole.end >= start  # the full text may have finished one more block
    assert "<ul>" in str(whole.done) and str(whole.done).count("<ul>") == 1  # the loose list stays one list


def test_an_answer_with_a_reference_definition_is_rendered_whole() -> None:
    text = "See [the docs][d].\n\n[d]: https://example.com\n"
    assert streamed_text(MessageItem(role="agent", parts=[TextPart(text=text)])) is None
    assert 'href="https://example.com"' in str(render_markdown(text))


def test_only_agent_answers_and_thoughts_that_are_all_text_stream() -> None:
    text = TextPart(text="x")
    assert streamed_text(MessageItem(role="agent", parts=[text])) == "x"
    assert streamed_text(MessageItem(role="thought", parts=[text])) == "x"
    assert streamed_text(MessageItem(role="user", parts=[text])) is None
    image = ImagePart(mime_type="image/png", data="AAAA")
    assert streamed_text(MessageItem(role="agent", parts=[text, image])) is None


def test_hostile_markdown_is_sanitised_in_both_parts() -> None:
    text = '<script>alert(1)</script>\n\n[x](javascript:alert(1))\n\n<div id="composer" hx-post="/x">y</div>'
    whole = split(text)
    assert whole.end > 0
    for html in (str(whole.done), str(whole.tail)):
        assert problems(html) == []
