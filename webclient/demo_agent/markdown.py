"""Small Markdown builders; file names and contents are data, so they are always quoted as code."""

from __future__ import annotations

import re
from pathlib import PurePath

__all__ = ["code", "fenced", "language_for"]

_LANGUAGES = {
    ".py": "python", ".pyi": "python", ".md": "markdown", ".markdown": "markdown", ".rst": "rst",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "jsx", ".ts": "typescript",
    ".tsx": "tsx", ".json": "json", ".toml": "toml", ".yaml": "yaml", ".yml": "yaml", ".ini": "ini",
    ".cfg": "ini", ".html": "html", ".htm": "html", ".css": "css", ".scss": "scss", ".xml": "xml",
    ".svg": "xml", ".sh": "bash", ".bash": "bash", ".zsh": "bash", ".rs": "rust", ".go": "go", ".c": "c",
    ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".java": "java", ".kt": "kotlin", ".rb": "ruby",
    ".php": "php", ".sql": "sql", ".lua": "lua", ".swift": "swift", ".txt": "text", ".csv": "csv",
    ".diff": "diff", ".patch": "diff", ".jinja": "jinja", ".j2": "jinja",
}  # fmt: skip
_NAMED = {"dockerfile": "dockerfile", "makefile": "makefile", "justfile": "make"}
_BACKTICK_RUN = re.compile(r"`+")


def language_for(path: PurePath) -> str:
    """The fenced-code language for a file, guessed from its name; "" when unknown."""
    return _NAMED.get(path.name.lower()) or _LANGUAGES.get(path.suffix.lower(), "")


def code(text: str) -> str:
    """Inline code that survives backticks and newlines in ``text`` (file names can hold both)."""
    text = text.replace("\r", "\\r").replace("\n", "\\n")
    ticks = "`" * (_longest_backtick_run(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def fenced(text: str, language: str = "") -> str:
    """A fenced code block that a line of backticks inside ``text`` cannot close early."""
    fence = "`" * max(3, _longest_backtick_run(text) + 1)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{fence}{language}\n{body}{fence}"


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in _BACKTICK_RUN.findall(text)), default=0)
