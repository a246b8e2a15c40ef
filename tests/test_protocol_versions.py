"""The protocol layer keeps ACP v1 and v2 side by side: `webclient/acp/v1/` and `webclient/acp/v2/` never
import each other, what both use sits in `webclient/acp/` and imports neither, and only `negotiate.py`
(which picks a version per agent process) knows both. Above the protocol layer no one knows a version's
package. No module of the layer is over 400 lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ACP = Path(__file__).resolve().parent.parent / "webclient" / "acp"
PACKAGE = ACP.parent
VERSIONS = ("webclient.acp.v1", "webclient.acp.v2")
# The one module that chooses between the versions, so imports both.
KNOWS_BOTH = "webclient.acp.negotiate"
MAX_LINES = 400


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """The `webclient` modules `path` imports, function-level imports included."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return {name for name in found if name.startswith("webclient")}


def version_of(module: str) -> str | None:
    return next((v for v in VERSIONS if module == v or module.startswith(v + ".")), None)


def crossings(path: Path, name: str | None = None) -> list[str]:
    """The imports of `path` (module `name`) that reach into a version package it may not know."""
    name = name or module_name(path)
    own = version_of(name)
    allowed = set(VERSIONS) if name == KNOWS_BOTH else {own} if own else set()
    return sorted(target for target in imported(path) if version_of(target) not in allowed | {None})


def package_modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("path", package_modules(), ids=module_name)
def test_module_knows_no_protocol_version_but_its_own(path: Path) -> None:
    assert crossings(path) == []


def test_the_check_catches_v1_importing_v2_and_shared_code_importing_a_version(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from webclient.acp.v2.translate import V2Translator\n"
        "from webclient.acp.v1.answers import auth_method\n"
        "from webclient.acp.models import TextPart\n"
    )
    assert crossings(probe, "webclient.acp.v1.probe") == ["webclient.acp.v2.translate"]
    assert crossings(probe, "webclient.acp.answers") == [
        "webclient.acp.v1.answers",
        "webclient.acp.v2.translate",
    ]
    assert crossings(probe, "webclient.domain.probe") == [
        "webclient.acp.v1.answers",
        "webclient.acp.v2.translate",
    ]
    assert crossings(probe, KNOWS_BOTH) == []


def test_both_versions_exist_side_by_side() -> None:
    assert (ACP / "v1" / "connection.py").is_file() and (ACP / "v2" / "connection.py").is_file()
    assert not (ACP / "connection.py").exists()  # no version lives at the layer's top


@pytest.mark.parametrize("path", sorted(ACP.rglob("*.py")), ids=module_name)
def test_protocol_module_is_at_most_400_lines(path: Path) -> None:
    assert len(path.read_text().splitlines()) <= MAX_LINES
