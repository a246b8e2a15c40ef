"""The protected set: which writes in the working directory would need the user's approval."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from webclient.domain.protected import DEFAULT_PATTERNS, ProtectedPaths, is_protected


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hi')\n")
    return root


@pytest.mark.parametrize(
    "relative",
    [
        ".git/config",
        ".git/hooks/pre-commit",
        ".git/hooks/new-hook",  # not there yet: still under .git/
        "vendor/lib/.git/config",  # a nested repository
        ".git",  # a submodule's gitdir pointer file
        ".GIT/Config",  # the same file on a case-insensitive disk
        ".env",
        ".env.local",
        "services/api/.env.production",
        ".vscode/tasks.json",
        ".idea/workspace.xml",
        ".github/workflows/ci.yml",
        ".husky/pre-push",
        ".ssh/authorized_keys",
        "certs/server.pem",
        "deploy.key",
        ".npmrc",
        ".pypirc",
        "home/.netrc",
        ".bashrc",
        ".zshrc",
        ".profile",
        ".gitconfig",
        ".config/git/config",
        ".config/autostart/x.desktop",
        ".config/systemd/user/x.service",
        ".local/share/systemd/user/x.timer",
        ".local/bin/git",
        "src/.envrc",
        ".tmux.conf",
        ".local/lib/python3.12/site-packages/evil.pth",
        ".venv/lib/python3.11/site-packages/sitecustomize.py",
        "usr/lib/python3/dist-packages/x.pth",
        ".ipython/profile_default/startup/00.py",
        ".gradle/init.d/x.gradle",
        ".m2/settings.xml",
        ".hgrc",
        "repo/.hg/hgrc",
        ".cargo/config.toml",
        ".config/Code/User/settings.json",
        ".config/Code - OSS/User/settings.json",
        ".vscode-server/data/Machine/settings.json",
        ".irbrc",
        ".Rprofile",
        ".gdbinit",
    ],
)
def test_the_default_set_is_protected(root: Path, relative: str) -> None:
    assert is_protected(root / relative, root)


@pytest.mark.parametrize(
    "relative",
    [
        "src/app.py",
        "README.md",
        "src/new_module.py",
        ".github/CODEOWNERS",
        "docs/git/config",
        "env.py",
        "keys.txt",
    ],
)
def test_ordinary_files_are_not(root: Path, relative: str) -> None:
    assert not is_protected(root / relative, root)


def test_an_existing_executable_is_protected_a_plain_file_is_not(root: Path) -> None:
    script = root / "build.sh"
    script.write_text("#!/bin/sh\n")
    assert not is_protected(script, root)
    script.chmod(0o755)
    assert is_protected(script, root)


def test_a_hard_link_is_protected_since_a_write_changes_the_other_name_too(root: Path) -> None:
    (root / "notes.txt").write_text("x")
    os.link(root / "notes.txt", root / "alias.txt")
    assert is_protected(root / "alias.txt", root)


def test_a_symlink_into_a_protected_place_is_protected(root: Path) -> None:
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    (root / "innocent.txt").symlink_to(root / ".git" / "config")
    assert is_protected(root / "innocent.txt", root)


def test_a_path_outside_the_root_is_never_allowed_by_this_policy(root: Path, tmp_path: Path) -> None:
    assert is_protected(tmp_path / "elsewhere.txt", root)


@pytest.mark.parametrize(
    ("glob", "protected", "free"),
    [
        ("*.lock", "poetry.lock", "src/app.py"),
        ("*.lock", "sub/dir/yarn.lock", "lock.txt"),
        ("secrets/", "secrets/db.txt", "src/secrets.py"),
        ("secrets/", "deep/secrets/x/y.txt", "secretsfile"),
        ("config/*.yaml", "config/app.yaml", "other/app.yaml"),
        ("Makefile", "Makefile", "src/app.py"),
        ("Makefile", "sub/makefile", "Makefile.txt"),
    ],
)
def test_protected_globs_add_to_the_defaults(root: Path, glob: str, protected: str, free: str) -> None:
    policy = ProtectedPaths(root, [glob])
    assert policy.is_protected(root / protected)
    assert not policy.is_protected(root / free)
    assert policy.is_protected(root / ".git" / "config")  # the defaults stay


def test_the_default_patterns_are_listed_for_documentation() -> None:
    assert ".git/" in DEFAULT_PATTERNS and ".github/workflows/" in DEFAULT_PATTERNS
    assert ".env.*" in DEFAULT_PATTERNS and "*.pem" in DEFAULT_PATTERNS


def test_webclients_own_settings_file_is_protected(tmp_path: Path) -> None:
    paths = ProtectedPaths(tmp_path)
    assert paths.is_protected(tmp_path / ".config" / "webclient" / "settings.json")
    assert not paths.is_protected(tmp_path / "webclient" / "other.json")


def test_home_bin_and_system_places_are_protected_for_a_working_directory_that_holds_them(
    tmp_path: Path,
) -> None:
    home = ProtectedPaths(tmp_path, home=tmp_path)
    assert home.is_protected(tmp_path / "bin" / "ls") and not home.is_protected(tmp_path / "src" / "bin")
    everything = ProtectedPaths(Path("/"), home=tmp_path)
    assert everything.is_protected("/etc/gitconfig") and everything.is_protected("/var/spool/cron/root")
    assert not everything.is_protected(tmp_path / "notes.txt")
