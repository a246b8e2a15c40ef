"""The check's sandbox: the agent works on a copy, never outside it, and is refused what runs code."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from webclient.acp.models import PermissionOption, PermissionRequest, ToolCallEvent
from webclient.check.sandbox import Sandbox
from webclient.domain.files import MAX_FILE_BYTES
from webclient.errors import RequestRefused


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("print('hi')\nprint('bye')\n")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "node_modules" / "x").mkdir(parents=True)
    return root


def test_writes_land_in_the_copy_and_never_in_the_workspace(workspace: Path) -> None:
    sandbox = Sandbox(workspace)
    try:
        sandbox.write(str(sandbox.cwd / "src" / "main.py"), "changed")
        sandbox.write("new.txt", "new")
        assert (sandbox.cwd / "src" / "main.py").read_text() == "changed"
        assert (workspace / "src" / "main.py").read_text() == "print('hi')\nprint('bye')\n"
        assert not (workspace / "new.txt").exists()
    finally:
        sandbox.close()
    assert not sandbox.root.exists()


def test_paths_outside_the_copy_are_refused(workspace: Path) -> None:
    sandbox = Sandbox(workspace)
    try:
        for path in (str(workspace / "src" / "main.py"), "../../etc/passwd", "/etc/passwd"):
            with pytest.raises(RequestRefused, match="outside the workspace"):
                sandbox.read(path, None, None)
        with pytest.raises(RequestRefused):
            sandbox.write(str(workspace / "src" / "main.py"), "x")
    finally:
        sandbox.close()


def test_reads_honour_line_and_limit_and_skip_version_control(workspace: Path) -> None:
    sandbox = Sandbox(workspace)
    try:
        assert sandbox.read("src/main.py", 2, 1) == "print('bye')\n"
        assert not (sandbox.cwd / ".git").exists() and not (sandbox.cwd / "node_modules").exists()
    finally:
        sandbox.close()


def request(*kinds: str) -> PermissionRequest:
    options = tuple(PermissionOption(id=kind, name=kind, kind=kind) for kind in kinds)
    return PermissionRequest(
        session_id="s", tool_call=ToolCallEvent(tool_call_id="t", is_update=True), options=options
    )


@pytest.mark.parametrize(
    ("allow", "kinds", "chosen"),
    [
        (False, ("allow_once", "allow_always", "reject_once", "reject_always"), "reject_once"),
        (True, ("allow_always", "allow_once", "reject_once"), "allow_once"),
        (False, ("allow_once",), None),
    ],
)
def test_permission_requests_get_the_configured_default(
    workspace: Path, allow: bool, kinds: tuple[str, ...], chosen: str | None
) -> None:
    sandbox = Sandbox(workspace, allow=allow)
    try:
        assert sandbox.permission(request(*kinds)).option_id == chosen
    finally:
        sandbox.close()


def test_a_fifo_is_refused_at_once_and_a_huge_sparse_file_past_the_servers_cap(workspace: Path) -> None:
    sandbox = Sandbox(workspace)
    try:
        os.mkfifo(sandbox.cwd / "pipe")
        with pytest.raises(RequestRefused, match="not a regular file"):
            sandbox.read("pipe", None, None)
        with open(sandbox.cwd / "huge.txt", "wb") as handle:
            handle.truncate(MAX_FILE_BYTES * 150)  # 1.5 GB of nothing, on no disk
        with pytest.raises(RequestRefused, match="more than the"):
            sandbox.read("huge.txt", None, None)
        with pytest.raises(RequestRefused, match="more than"):
            sandbox.write("big.txt", "x" * (MAX_FILE_BYTES + 1))
    finally:
        sandbox.close()
