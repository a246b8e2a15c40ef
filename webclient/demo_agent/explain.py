"""Deterministic short summaries of a file: size and lines, Python definitions, Markdown headings."""

from __future__ import annotations

import ast
import re

from .markdown import code

__all__ = ["summarise"]

HEADING_LIMIT = 40
DEFINITION_LIMIT = 40
_ATX_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def summarise(name: str, text: str, size: int, language: str, complete: bool = True) -> str:
    """Markdown describing ``text`` (the start of file ``name``); ``complete`` is False for a prefix."""
    lines = text.splitlines()
    parts = [_overview(name, len(lines), size, language, complete)]
    if language == "python":
        parts.append(_python_outline(text, complete))
    elif language == "markdown":
        parts.append(_markdown_outline(lines))
    elif lines:
        first = next((line.strip() for line in lines if line.strip()), "")
        parts.append(
            f"Its first non-empty line is {code(first[:120])}." if first else "It holds only blanks."
        )
    return "\n\n".join(part for part in parts if part)


def _overview(name: str, line_count: int, size: int, language: str, complete: bool) -> str:
    if size == 0:
        return f"{code(name)} is empty."
    kind = f" ({language})" if language else ""
    lines = f"{line_count} line{'s' if line_count != 1 else ''}"
    if not complete:
        return f"{code(name)}{kind}: {size} bytes. I read the first {lines}; the rest is too big to analyse."
    return f"{code(name)}{kind}: {lines}, {size} bytes."


def _python_outline(text: str, complete: bool) -> str:
    try:
        module = ast.parse(text)
    except SyntaxError as exc:
        if not complete:
            return "The part I read does not parse on its own, so I can't list its definitions."
        return f"It does not parse as Python (line {exc.lineno}: {exc.msg})."
    parts = []
    if docstring := ast.get_docstring(module):
        parts.append(f"Module docstring: {docstring.strip().splitlines()[0]}")
    definitions = [_describe(node) for node in module.body if isinstance(node, _DEFINITIONS)]
    if not definitions:
        parts.append("It has no top-level functions or classes.")
        return "\n\n".join(parts)
    shown = definitions[:DEFINITION_LIMIT]
    more = len(definitions) - len(shown)
    listing = "\n".join(f"- {line}" for line in shown) + (f"\n- and {more} more" if more else "")
    parts.append(f"Top-level definitions ({len(definitions)}):\n\n{listing}")
    return "\n\n".join(parts)


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _describe(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
    if isinstance(node, ast.ClassDef):
        signature = f"class {node.name}"
    else:
        prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
        signature = f"{prefix} {node.name}({', '.join(_argument_names(node.args))})"
    summary = (ast.get_docstring(node) or "").strip().splitlines()
    tail = f": {summary[0]}" if summary else ""
    return f"{code(signature)} (line {node.lineno}){tail}"


def _argument_names(args: ast.arguments) -> list[str]:
    names = [arg.arg for arg in (*args.posonlyargs, *args.args)]
    if args.vararg:
        names.append(f"*{args.vararg.arg}")
    elif args.kwonlyargs:
        names.append("*")
    names.extend(arg.arg for arg in args.kwonlyargs)
    if args.kwarg:
        names.append(f"**{args.kwarg.arg}")
    return names


def _markdown_outline(lines: list[str]) -> str:
    headings: list[tuple[int, str]] = []
    in_fence = False
    for line in lines:
        if _FENCE.match(line):
            in_fence = not in_fence  # headings inside code blocks are code, not structure
        elif not in_fence and (match := _ATX_HEADING.match(line)):
            headings.append((len(match.group(1)), match.group(2)))
    if not headings:
        return "It has no headings."
    top = min(level for level, _ in headings)
    shown = headings[:HEADING_LIMIT]
    outline = "\n".join(f"{'  ' * (level - top)}- {title}" for level, title in shown)
    more = len(headings) - len(shown)
    return f"Headings ({len(headings)}):\n\n{outline}" + (f"\n\n…and {more} more." if more else "")
