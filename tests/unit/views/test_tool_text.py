"""A tool card's text: Markdown, or output that keeps its lines, by content and the tool's kind."""

from __future__ import annotations

import pytest

from webclient.views.tool_text import keeps_lines

QWEN = "Command: ls\nDirectory: (root)\nOutput: a.txt\nb.txt\nError: (none)\nExit Code: 0"
LS = "total 8\ndrwxr-xr-x  2 dev dev 4096 Dec  3 10:12 .\n-rw-r--r--  1 dev dev  220 Dec  3 10:12 README.md\n"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (QWEN, "execute"),
        (QWEN, None),  # single newlines between running lines carry meaning, whatever the kind
        (LS, "other"),  # columns aligned with runs of spaces
        ("a\tb\nc\td", None),
        ("- one\n- two", "execute"),  # a command's output, even if it looks like a list
    ],
)
def test_plain_output_keeps_its_lines(text: str, kind: str | None) -> None:
    assert keeps_lines(text, kind)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("```\n# Shop\n\nA tiny shop.\n```", "read"),  # claude-agent-acp's Read: a fence
        ("```console\nPython 3.11.2\n```", "execute"),  # claude-agent-acp's Bash: a fence, even for execute
        ("Found **3** files", "search"),
        ("**3 passed**", "execute"),  # one line: the agent's emphasis is kept
        ("Edited the file.\n\n- added a test\n- fixed the import", "edit"),  # paragraphs and a list
        ("# Summary\n- one\n- two\n1. three", None),
        ("| a | b |\n|---|---|\n| 1 | 2 |", None),
    ],
)
def test_markdown_stays_markdown(text: str, kind: str | None) -> None:
    assert not keeps_lines(text, kind)
