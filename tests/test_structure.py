"""The package's shape: no import circle, session state written only by its own transitions, one door into a
session, small modules.

Each check walks the source of `webclient/` (not the running code), and each has a twin that plants the
fault it looks for, so none of them can pass by finding nothing.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from webclient.domain.items import PermissionItem
from webclient.domain.state import SessionState
from webclient.domain.transcript import Transcript

PACKAGE = Path(__file__).resolve().parent.parent / "webclient"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


# --- no import circle -----------------------------------------------------------------------------------


def imported_modules(path: Path, name: str, known: set[str]) -> set[str]:
    """The package's modules `path` (module `name`) imports anywhere in it: at module level, in a function,
    or under TYPE_CHECKING. `from a.b import c` names module `a.b.c` if there is one, else `a.b`."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names)
    return {m for m in found if m in known and m != name}


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
    return f"{parent}.{node.module}" if node.module else parent


def import_graph() -> dict[str, set[str]]:
    paths = {module_name(p): p for p in modules()}
    known = set(paths)
    return {name: imported_modules(path, name, known) for name, path in paths.items()}


def circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Every group of modules that import each other, directly or around a longer loop (Tarjan's
    strongly connected components of more than one module, or a module importing itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = [stack.pop()]
            while group[-1] != node:
                group.append(stack.pop())
            if len(group) > 1 or node in graph.get(node, ()):
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_modules_of_the_package_import_each_other_in_a_circle() -> None:
    assert circles(import_graph()) == []


def test_the_circle_check_finds_a_loop_through_a_type_checking_import(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.b import B\n")
    (package / "b.py").write_text("def f():\n    from . import c\n")
    (package / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n"
    )
    (package / "d.py").write_text("import pkg.a\n")
    known = {"pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.d"}
    graph = {name: imported_modules(package / f"{name[4:]}.py", name, known) for name in known - {"pkg"}}
    assert graph["pkg.b"] == {"pkg.c"} and graph["pkg.c"] == {"pkg.a"}
    assert circles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]


# --- session state is written only by its own methods ---------------------------------------------------

# The modules that own the session's state: the state, its transcript, and the entries in it.
STATE_MODULES = {"webclient.domain.state", "webclient.domain.transcript", "webclient.domain.items"}
GUARDED = {f.name for f in dataclasses.fields(SessionState)} | {"state", "chosen"}  # a permission's too
assert {"state", "chosen"} <= {f.name for f in dataclasses.fields(PermissionItem)}


def state_writes(path: Path) -> list[str]:
    """Assignments in `path` to a field of `SessionState` (or a permission request's answer) on anything
    but `self`: plain, augmented, annotated, in a tuple, deleted, or by `setattr` with a literal name."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        for target in _written(node):
            if isinstance(target, ast.Attribute) and target.attr in GUARDED and not _is_self(target.value):
                found.append((target.lineno, ast.unparse(target)))
        if isinstance(node, ast.Call) and _is_setattr(node):
            found.append((node.lineno, ast.unparse(node)))
    return [f"{line}: {code}" for line, code in sorted(found)]


def _written(node: ast.AST) -> Iterator[ast.expr]:
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        targets = [node.target]
    elif isinstance(node, ast.Delete):
        targets = node.targets
    else:
        return
    for target in targets:
        yield from _unpacked(target)


def _unpacked(target: ast.expr) -> Iterator[ast.expr]:
    if isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _unpacked(element)
    elif isinstance(target, ast.Starred):
        yield from _unpacked(target.value)
    else:
        yield target


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _is_setattr(node: ast.Call) -> bool:
    if not (isinstance(node.func, ast.Name) and node.func.id == "setattr"):
        return False
    if len(node.args) < 2 or _is_self(node.args[0]):
        return False
    name = node.args[1]
    return isinstance(name, ast.Constant) and name.value in GUARDED


@pytest.mark.parametrize(
    "path", [p for p in modules() if module_name(p) not in STATE_MODULES], ids=lambda p: module_name(p)
)
def test_session_state_is_written_only_by_its_own_methods(path: Path) -> None:
    assert state_writes(path) == []


def test_the_state_check_catches_every_kind_of_write(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "live.state.title = 'x'\n"
        "state.suggestions_generation += 1\n"
        "live.state.queued: bool = True\n"
        "live.state.session_id, other = 's', 1\n"
        "setattr(live.state, 'turn', None)\n"
        "item.state = 'answered'\n"
        "self.title = 'own attribute'\n"
        "setattr(live.state, name, None)\n"
        "other.unrelated = 1\n"
    )
    assert state_writes(probe) == [
        "1: live.state.title",
        "2: state.suggestions_generation",
        "3: live.state.queued",
        "4: live.state.session_id",
        "5: setattr(live.state, 'turn', None)",
        "6: item.state",
    ]


# --- no module over 400 lines ---------------------------------------------------------------------------

MAX_LINES = 400


def too_long(paths: list[Path], limit: int = MAX_LINES) -> dict[str, int]:
    """The modules among `paths` with more than `limit` lines, with their length."""
    lengths = {module_name(p): len(p.read_text().splitlines()) for p in paths}
    return {name: n for name, n in lengths.items() if n > limit}


def test_no_module_is_over_400_lines_outside_the_demo_agent() -> None:
    paths = [p for p in modules() if "demo_agent" not in p.relative_to(PACKAGE).parts]
    assert too_long(paths) == {}


def test_the_length_check_catches_a_long_module() -> None:
    state = PACKAGE / "domain" / "state.py"
    assert too_long([state], limit=10) == {"webclient.domain.state": len(state.read_text().splitlines())}
    assert too_long([state]) == {}


# --- one door into a session ----------------------------------------------------------------------------

# The session: the only module that holds its change sink and runs its state's transitions for others.
SESSION_MODULE = "webclient.domain.live_session"
# The transitions of a session's state and of its transcript: methods that change it and say what changed.
TRANSITIONS = {
    name
    for cls in (SessionState, Transcript)
    for name, member in vars(cls).items()
    if callable(member) and not name.startswith("_") and member.__annotations__.get("return") == "set[str]"
}
assert {"apply", "add_notice", "set_sidebar", "settle_failure"} <= TRANSITIONS


def reached_through(path: Path) -> list[str]:
    """Where `path` reaches through a session: its change sink (`.hub`, or marking `live.viewers`), or a
    transition of its state called on another object's `state` (`live.state.add_notice(…)`,
    `live.state.transcript.…(…)`)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Attribute) and (node.attr == "hub" or _marks_viewers(node)):
            found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Call) and _is_transition_through_state(node.func):
            found.append((node.lineno, ast.unparse(node.func)))
    return [f"{line}: {code}" for line, code in sorted(set(found))]


def _marks_viewers(node: ast.Attribute) -> bool:
    """`x.viewers.mark`: the session's sink told of a change the session did not make."""
    return node.attr == "mark" and isinstance(node.value, ast.Attribute) and node.value.attr == "viewers"


def _is_transition_through_state(func: ast.expr) -> bool:
    return isinstance(func, ast.Attribute) and func.attr in TRANSITIONS and _reaches_state(func.value)


def _reaches_state(node: ast.expr) -> bool:
    """`x.state` or `x.state.transcript` for any `x` but `self`."""
    if isinstance(node, ast.Attribute) and node.attr == "transcript":
        node = node.value
    return isinstance(node, ast.Attribute) and node.attr == "state" and not _is_self(node.value)


@pytest.mark.parametrize(
    "path", [p for p in modules() if module_name(p) != SESSION_MODULE], ids=lambda p: module_name(p)
)
def test_nothing_outside_the_session_reaches_its_sink_or_its_state_transitions(path: Path) -> None:
    assert reached_through(path) == []


def test_the_door_check_catches_every_reach_through(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "live.hub.mark(keys)\n"
        "live.state.add_notice(notice)\n"
        "live.state.transcript.settle_failure(back)\n"
        "sub = session.hub\n"
        "self.state.apply(event)\n"
        "live.notice(level, text)\n"
        "live.state.display_title\n"
        "state.set_suggestions(())\n"
        "live.viewers.mark(keys)\n"
        "live.viewers.subscribe()\n"
    )
    assert reached_through(probe) == [
        "1: live.hub",
        "2: live.state.add_notice",
        "3: live.state.transcript.settle_failure",
        "4: session.hub",
        "9: live.viewers.mark",
    ]
