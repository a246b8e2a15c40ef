"""The package's layers import one way: acp <- domain <- views <- check <- web; the bundled agents (demo,
replay) stand alone.

Walks every module's imports (function-level ones included) and fails on any import that points up, so
a shortcut from the protocol layer to the page, or from the domain to FastAPI, cannot creep in.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "webclient"
LAYERS = ("acp", "domain", "views", "check", "web")
# Modules below every layer: anyone may import them, they import no layer.
BASE = {
    "webclient",
    "webclient.aio",
    "webclient.errors",
    "webclient.settings",
    "webclient.agent_config",
    "webclient.settings_file",
    "webclient.remote_config",
    "webclient.sdk",
    "webclient.text_controls",
}
# What the demo agent may import of the package: its root, and the SDK loader both sides of the wire use.
DEMO_AGENT_MAY_IMPORT = {"webclient", "webclient.sdk"}
# The bundled agents: each imports nothing of the package but its root and its own modules.
AGENTS = ("demo_agent", "replay_agent")
# Third-party packages a layer must not know.
FORBIDDEN_LIBRARIES = {
    "acp": {"fastapi", "starlette", "jinja2", "markupsafe", "uvicorn"},
    "domain": {"fastapi", "starlette", "jinja2", "markupsafe", "uvicorn"},
    "views": {"fastapi", "starlette", "uvicorn"},
    "check": {"fastapi", "starlette", "uvicorn"},
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "webclient" or len(parts) < 2:
        return None
    return parts[1]


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def upward_imports(path: Path, name: str | None = None) -> list[str]:
    """The imports in `path` (module `name`) that break the layering (empty when it keeps to it)."""
    name = name or module_name(path)
    own = layer_of(name)
    wrong: list[str] = []
    for target in imports(path):
        if not target.startswith("webclient"):
            top = target.split(".")[0]
            if own in FORBIDDEN_LIBRARIES and top in FORBIDDEN_LIBRARIES[own]:
                wrong.append(target)
            continue
        other = layer_of(target)
        if own in AGENTS:
            if other != own and target not in DEMO_AGENT_MAY_IMPORT:
                wrong.append(target)
        elif name in BASE or own in {"errors", "settings"}:
            if other in LAYERS:
                wrong.append(target)
        elif own in LAYERS and _points_up(own, other):
            wrong.append(target)
    return sorted(wrong)


def _points_up(own: str, other: str | None) -> bool:
    if other in AGENTS:
        return True  # the client never reaches into the agent it runs
    return other in LAYERS and LAYERS.index(other) > LAYERS.index(own)


@pytest.mark.parametrize("path", modules(), ids=lambda p: module_name(p))
def test_module_imports_only_from_its_own_layer_and_below(path: Path) -> None:
    assert upward_imports(path) == []


def test_the_check_catches_an_upward_import(tmp_path: Path) -> None:
    # The check itself must be able to fail: a protocol module that imports the page layer.
    fake = tmp_path / "probe.py"
    fake.write_text("from webclient.views import render\nimport fastapi\n")
    found = upward_imports(fake, "webclient.acp.probe")
    assert found == ["fastapi", "webclient.views", "webclient.views.render"]


def test_every_module_belongs_to_a_layer_or_the_base() -> None:
    loose = [
        module_name(p)
        for p in modules()
        if layer_of(module_name(p)) not in (*LAYERS, *AGENTS)
        and module_name(p) not in BASE | {"webclient.__main__"}
    ]
    assert loose == []


# --- wire keys stay in the protocol layer ---------------------------------------------------------------

# ContentBlock keys the domain once wrote itself (`git grep -nE '"(type|mimeType|text)"' webclient/domain`
# is empty), and any camelCase name: ACP's spelling, which only `webclient/acp` knows.
WIRE_KEYS = frozenset({"type", "text", "mimeType", "_meta", "annotations"})
_CAMEL_CASE = re.compile(r"[a-z]+(?:[A-Z][a-z0-9]*)+")
_QUOTED_KEY = re.compile(r'"(?:type|mimeType|text)"')


def wire_keys(path: Path) -> list[str]:
    """String literals in `path` that are ACP wire keys, and quoted block keys anywhere in its text."""
    source = path.read_text()
    found = [
        f"{node.lineno}: {node.value!r}"
        for node in ast.walk(ast.parse(source, str(path)))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and (node.value in WIRE_KEYS or _CAMEL_CASE.fullmatch(node.value))
    ]
    found += [f"{source.count(chr(10), 0, m.start()) + 1}: {m.group()}" for m in _QUOTED_KEY.finditer(source)]
    return found


@pytest.mark.parametrize(
    "path", [p for p in modules() if layer_of(module_name(p)) == "domain"], ids=lambda p: module_name(p)
)
def test_the_domain_builds_no_wire_dicts(path: Path) -> None:
    assert wire_keys(path) == []


def test_the_wire_key_check_catches_a_content_block_dict(tmp_path: Path) -> None:
    fake = tmp_path / "probe.py"
    fake.write_text("BLOCK = {'type': 'image', 'mimeType': 'image/png'}\n")
    assert wire_keys(fake) == ["1: 'type'", "1: 'mimeType'"]
