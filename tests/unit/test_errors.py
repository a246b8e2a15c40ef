"""The exception tree drawn in `webclient/errors.py` is the tree the package defines."""

from __future__ import annotations

import importlib
import pkgutil
import re

import webclient
from webclient import errors
from webclient.errors import WebclientError

# A line of the drawing: its tree prefix, then the class name.
_LINE = re.compile(r"^(?P<prefix>[│├└─ ]*)(?P<name>[A-Z][A-Za-z]+)\b")


def _drawn() -> dict[str, str | None]:
    """Each class of the drawing, with its parent (None for the root), from the lines' indentation."""
    drawing = (errors.__doc__ or "").split("```text\n", 1)[1].split("```", 1)[0]
    parents: dict[str, str | None] = {}
    stack: list[tuple[int, str]] = []
    for line in drawing.splitlines():
        match = _LINE.match(line)
        assert match is not None, f"not a line of the tree: {line!r}"
        depth = len(match["prefix"])
        while stack and stack[-1][0] >= depth:
            stack.pop()
        parents[match["name"]] = stack[-1][1] if stack else None
        stack.append((depth, match["name"]))
    return parents


def _defined() -> dict[str, str | None]:
    """Every subclass of WebclientError the package defines, with its nearest parent in that tree."""
    for module in pkgutil.walk_packages(webclient.__path__, "webclient."):
        if not module.name.endswith("__main__"):  # a __main__ runs its program when imported
            importlib.import_module(module.name)
    found: dict[str, str | None] = {"WebclientError": None}
    pending = [WebclientError]
    while pending:
        parent = pending.pop()
        for child in parent.__subclasses__():
            if child.__module__.startswith("webclient."):
                found[child.__name__] = parent.__name__
                pending.append(child)
    return found


def test_the_drawing_in_errors_is_the_package_s_exception_tree() -> None:
    assert _drawn() == _defined()
