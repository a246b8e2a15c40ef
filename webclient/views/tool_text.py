"""Whether a tool call's text is Markdown or output to show as it is, line for line.

Agents put both in a tool card's text content: claude-agent-acp wraps what a tool returned in a Markdown
code fence, while gemini-cli's shell, qwen-code's ("Command: ...\\nDirectory: ...\\nOutput: ...") and
codex-acp's (`ls -la`) send the command's plain output. Rendered as Markdown, plain output loses its line
breaks and column alignment (single newlines join into one paragraph, runs of spaces collapse, `*` and `_`
in file names turn into emphasis). So the text is decided by its content and the tool's kind: a fence
means Markdown; an `execute` tool's output, or text whose single newlines or aligned columns carry
meaning, keeps its lines.
"""

from __future__ import annotations

import re
from itertools import pairwise

# A line Markdown treats as a block of its own, so a single newline before it does not join paragraphs.
_BLOCK_LINE = re.compile(r"\s{0,3}(?:[-*+]\s|\d{1,9}[.)]\s|#{1,6}\s|>|\||```|~~~)")
_FENCE = re.compile(r"^\s{0,3}(?:```|~~~)", re.M)
# Columns lined up with runs of spaces inside a line (`ls -la`, tables printed by a command).
_ALIGNED = re.compile(r"\S {2,}\S")


def keeps_lines(text: str, kind: str | None) -> bool:
    """True when `text` is output to show as it is (preformatted); False when it is Markdown."""
    if _FENCE.search(text):
        return False  # the agent wrote Markdown, with its output inside a fence
    lines = text.strip("\n").split("\n")
    if len(lines) < 2:
        return False  # one line reads the same either way; Markdown keeps an agent's emphasis
    if kind == "execute":
        return True  # a command's output is terminal text, whatever characters it has
    if any("\t" in line or _ALIGNED.search(line) for line in lines):
        return True
    # A single newline between two lines of running text would be joined by Markdown: it means a line.
    return any(
        prev.strip() and line.strip() and not _BLOCK_LINE.match(line) and not _BLOCK_LINE.match(prev)
        for prev, line in pairwise(lines)
    )
