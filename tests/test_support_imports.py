"""What tests share lives in tests/support/: no test module imports another, nor a conftest.

A test file that imports another one runs that file's module-level code (fixtures, marks, servers it binds)
in its own, and ties two files together that look independent; a conftest's fixtures reach tests by
pytest's own lookup, never by import. So helpers two test files need are in `tests.support`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST_TREES = ("tests", "e2e", "bench")


def shared_modules(module: str) -> bool:
    """Whether `module` (dotted) is a test module or a conftest, which nothing may import."""
    last = module.rsplit(".", 1)[-1]
    return last.startswith("test_") or last == "conftest"


def imported(path: Path, root: Path) -> Iterator[tuple[int, str]]:
    """(line, module) of every import in `path` (under `root`); a relative import is resolved against its
    package."""
    package = path.relative_to(root).parent.parts
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else ()
            module = ".".join([*base, node.module or ""]).strip(".")
            yield node.lineno, module
            # `from . import test_x` names the module in the alias
            yield from ((node.lineno, f"{module}.{alias.name}") for alias in node.names if not node.module)


def offences(paths: list[Path], root: Path = ROOT) -> list[str]:
    return [
        f"{path.relative_to(root)}:{line} imports {module}"
        for path in paths
        for line, module in imported(path, root)
        if shared_modules(module)
    ]


def python_files() -> list[Path]:
    return sorted(p for tree in TEST_TREES for p in (ROOT / tree).rglob("*.py"))


def test_no_test_module_imports_another_test_module_or_a_conftest() -> None:
    assert offences(python_files()) == []


def test_the_check_sees_absolute_and_relative_imports_of_test_modules(tmp_path: Path) -> None:
    probe = tmp_path / "tests" / "unit" / "probe_imports.py"
    probe.parent.mkdir(parents=True)
    source = "from tests.unit.web.test_cli import x\nfrom .conftest import y\nimport e2e.test_page\n"
    probe.write_text(source + "from tests.support.html import tags\nfrom . import helpers\n")
    assert offences([probe], tmp_path) == [
        "tests/unit/probe_imports.py:1 imports tests.unit.web.test_cli",
        "tests/unit/probe_imports.py:2 imports tests.unit.conftest",
        "tests/unit/probe_imports.py:3 imports e2e.test_page",
    ]
