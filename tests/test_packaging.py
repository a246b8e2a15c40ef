"""What users install is the whole program: the sdist and the wheel built from it, as `pipx install .` or
`pip install .` build them, carry every module of webclient/ and every template and static file, nothing
of the tests, and the version written once in webclient/__init__.py.

The build runs on a copy of the checkout without what a clean clone lacks (a stale egg-info or build/
folder would otherwise feed it), with the setuptools and build of the test environment (`--no-isolation`),
so it needs no network; `make package-check` builds in isolation and runs the installed wheel.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

import webclient
from webclient.web.cli import build_parser

# Builds the sdist and the wheel: `make test` runs it, not `make test-fast`.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
# Shipped inside the package under these names (pyproject.toml's package-dir).
MAPPED = {"templates": "webclient/templates", "static": "webclient/static"}
NOT_IN_A_CLEAN_CLONE = shutil.ignore_patterns(
    ".git", ".venv", "__pycache__", "*.egg-info", "build", "dist", "artifacts", ".*_cache", "node_modules"
)


def source_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder with the sdist and the wheel (built from the sdist) of a copy of this checkout."""
    work = tmp_path_factory.mktemp("package")
    shutil.copytree(ROOT, work / "source", ignore=NOT_IN_A_CLEAN_CLONE)
    command = [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(work / "dist")]
    done = subprocess.run([*command, str(work / "source")], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    return work / "dist"


def wheel_names(dist: Path) -> set[str]:
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_the_wheel_holds_every_module_of_the_package(dist: Path) -> None:
    modules = {p.relative_to(ROOT).as_posix() for p in source_files(ROOT / "webclient")}
    assert modules, "no modules found to check"
    assert modules - wheel_names(dist) == set()


@pytest.mark.parametrize("folder", sorted(MAPPED))
def test_the_wheel_holds_every_template_and_static_file(dist: Path, folder: str) -> None:
    files = {
        f"{MAPPED[folder]}/{p.relative_to(ROOT / folder).as_posix()}" for p in source_files(ROOT / folder)
    }
    assert files, f"no files found in {folder}/"
    assert files - wheel_names(dist) == set()


def test_the_wheel_holds_the_package_alone(dist: Path) -> None:
    tops = {name.split("/", 1)[0] for name in wheel_names(dist)}
    assert tops == {"webclient", f"webclient-{webclient.__version__}.dist-info"}


def test_the_sdist_carries_what_the_wheel_is_built_from(dist: Path) -> None:
    (sdist,) = dist.glob("*.tar.gz")
    prefix = f"webclient-{webclient.__version__}"
    with tarfile.open(sdist) as archive:
        names = set(archive.getnames())
    for needed in ("pyproject.toml", "setup.py", "README.md", "templates/index.html", "static/app.js"):
        assert f"{prefix}/{needed}" in names


def test_the_version_is_written_once(dist: Path) -> None:
    (wheel,) = dist.glob("*.whl")
    assert wheel.name.startswith(f"webclient-{webclient.__version__}-")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project
    assert "version" in project["dynamic"]


def test_the_command_line_prints_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"webclient {webclient.__version__}\n"


SMOKE = ROOT / "scripts" / "smoke_wheel.py"


def smoke(command: Path) -> subprocess.CompletedProcess[str]:
    """scripts/smoke_wheel.py (what `make package-check` runs on a fresh install) run on `command`."""
    check = [sys.executable, str(SMOKE), "--installed", str(command)]
    return subprocess.run(check, capture_output=True, text=True, timeout=120)


def test_the_package_check_passes_a_webclient_that_serves_its_page() -> None:
    done = smoke(Path(sys.executable).parent / "webclient")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"webclient {webclient.__version__} served" in done.stdout


def test_the_package_check_fails_a_webclient_that_serves_nothing(tmp_path: Path) -> None:
    # Prints the line a real start prints, with a port nothing listens on, and waits to be stopped.
    fake = tmp_path / "webclient"
    url = f"http://127.0.0.1:{unused_port()}/?token=t"
    fake.write_text(
        f'#!/bin/sh\necho "webclient {webclient.__version__} is running at {url}"\nexec sleep 60\n'
    )
    fake.chmod(0o755)
    done = smoke(fake)
    assert done.returncode == 1
    assert f"package check FAILED: GET {url}" in done.stderr


def unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port
