"""Which files in the working directory are protected: a write there could make code run.

Pure policy, apart from one `lstat`/`stat` per path for the executable bit. The caller asks before an
agent's write to a protected path (the write itself is not this module's business). The defaults follow
what careful editors protect: version control internals and hooks, editor and CI configuration that
runs tasks, credentials and keys, and any existing executable; and, for a working directory that holds
them (the home folder, or `/`), the start-up hooks of shells and interpreters, build-tool and
version-control configuration, editor settings, SSH, desktop autostart, systemd user units, cron and
the folders on PATH (the rule and its classes are stated above `_DIRECTORIES`). `extra` adds the user's
`--protected` globs.

Matching ignores case: on macOS and Windows `.Git/Config` is the same file as `.git/config`. Both the
path as asked and the path it resolves to are checked, so a symlink named `notes.txt` that points into
`.git/` is protected too.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath

__all__ = ["DEFAULT_PATTERNS", "ProtectedPaths", "is_protected"]

# The rule: a file is protected when a program runs it, or a command it names, by itself, without a
# question: at its next start, at the next command of a tool, or when an editor opens a folder. With the
# working directory at the home folder (webclient's default is the current directory), the user's own
# configuration is inside it. The classes, each as directories (path segments, at any depth, everything
# under them) and file names (at any depth):
# - version control internals, CI and credentials of a project;
# - start-up hooks of shells and interpreters (Python's site-packages `.pth` files run at every start);
# - build-tool and version-control configuration (init scripts, hooks, aliases, credential helpers);
# - editor and IDE settings (tasks, terminal profiles, paths of the executables they run);
# - what the desktop or systemd starts, and the folders on PATH.
_DIRECTORIES = (
    # version control and CI of a project
    (".git",),  # config (core.fsmonitor, core.hooksPath...) and hooks run commands
    (".hg",),  # a repository's hgrc: [hooks]
    (".svn",),
    (".bzr",),
    (".jj",),
    (".github", "workflows"),  # CI that runs with the repository's secrets
    (".husky",),  # git hooks
    # credentials that run a helper, or log in
    (".ssh",),  # authorized_keys, config's ProxyCommand
    (".docker",),  # credential helpers
    (".kube",),  # exec credential plugins
    (".aws",),  # credential_process
    (".gnupg",),
    # start-up hooks of shells and interpreters
    (".config", "fish"),
    (".config", "zsh"),
    (".oh-my-zsh",),
    (".bashrc.d",),
    ("site-packages",),  # .pth files (import lines run at every start), sitecustomize, any module
    ("dist-packages",),
    (".ipython",),  # profile_default/startup/*.py
    (".config", "ipython"),
    (".jupyter",),
    (".julia", "config"),  # startup.jl
    (".config", "environment.d"),
    (".config", "direnv"),
    # build tools and version control: configuration that names commands, init scripts, indexes
    (".config", "git"),  # git's global config, attributes and hooks
    (".config", "hg"),
    (".config", "jj"),
    (".gradle",),  # init.gradle, init.d/, gradle.properties
    (".m2",),  # settings.xml
    (".sbt",),
    (".cargo",),  # config.toml (build.rustc-wrapper, aliases), bin/ on PATH
    (".rustup",),
    (".config", "pip"),  # an index URL: what the next install runs
    (".pip",),
    (".config", "uv"),
    (".config", "pypoetry"),
    (".config", "yarn"),
    (".config", "npm"),
    (".config", "go"),
    (".config", "composer"),
    (".composer",),
    (".bundle",),
    (".cabal",),
    (".stack",),
    (".config", "nix"),
    # editor and IDE settings: tasks, terminal profiles, executables they run
    (".vscode",),  # a folder's tasks.json, settings that name executables
    (".config", "code"),  # VS Code's user settings.json
    (".config", "code - oss"),
    (".config", "vscodium"),
    (".config", "cursor"),
    (".vscode-server",),  # remote VS Code: settings, extensions
    (".vscode-oss",),
    (".cursor",),
    (".idea",),
    (".config", "jetbrains"),
    (".config", "sublime-text"),
    (".config", "sublime-text-3"),
    (".config", "zed"),
    (".config", "helix"),
    (".config", "nvim"),
    (".config", "emacs"),
    (".vim",),
    (".emacs.d",),
    (".doom.d",),
    # what the desktop and systemd start, and the folders on PATH
    (".config", "autostart"),
    (".config", "systemd"),  # systemd user units
    (".local", "share", "systemd"),
    (".local", "bin"),  # on PATH: a new file there runs under a command's name
)
# File names protected wherever they are (the same classes).
_NAMES = (
    # credentials and secrets
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    ".npmrc",
    ".pypirc",
    ".netrc",
    # shell start-up files, run by every new shell
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".cshrc",
    ".tcshrc",
    ".kshrc",
    ".xprofile",
    ".xinitrc",
    ".xsession",
    ".xsessionrc",
    ".pam_environment",
    ".envrc",  # direnv runs it on entering the directory
    ".tmux.conf",  # run-shell
    ".screenrc",
    # interpreters' and debuggers' start-up files
    "*.pth",  # an `import` line in one runs at every Python start
    "sitecustomize.py",
    "usercustomize.py",
    ".pythonrc",
    ".pythonrc.py",
    ".pythonstartup",
    ".irbrc",
    ".pryrc",
    ".gemrc",
    ".rprofile",
    ".renviron",
    ".perldb",
    ".psqlrc",  # \! runs a shell command
    ".gdbinit",
    ".lldbinit",
    # build-tool and version-control configuration
    ".gitconfig",  # git's global config: core.fsmonitor runs at the next `git status` anywhere
    ".hgrc",  # [hooks], [alias] with !
    ".yarnrc",
    ".yarnrc.yml",  # yarnPath runs a script
    ".bunfig.toml",
    ".condarc",
    ".pydistutils.cfg",
    "pip.conf",
    ".mavenrc",
    # editor configuration
    ".vimrc",
    ".gvimrc",
    ".exrc",
    ".nvimrc",
    ".emacs",
    ".spacemacs",
)
# Absolute places protected for any working directory (one at `/` holds them): system configuration,
# git's system config among it, programs, and the crontabs.
_SYSTEM = ("/etc/", "/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/opt/", "/boot/", "/var/spool/cron/")

DEFAULT_PATTERNS: tuple[str, ...] = (*("/".join(d) + "/" for d in _DIRECTORIES), *_NAMES)
"""The default set, written as `--protected` globs would be (for the README and error messages)."""


class ProtectedPaths:
    """The protected set of one working directory: the defaults plus `extra` globs.

    An extra glob is matched against the path relative to the root and against the file name alone;
    `*` also matches `/`. A glob ending in `/` protects everything under a directory of that name (or
    at that relative path).
    """

    def __init__(self, root: Path, extra: Iterable[str] = (), home: Path | None = None) -> None:
        self.root = Path(os.path.realpath(root))
        self.extra = tuple(p.strip() for p in extra if p.strip())
        # `~/bin` is on PATH in Debian's default ~/.profile, like ~/.local/bin.
        self.home_bin = Path(os.path.realpath(home or Path.home())) / "bin"

    def is_protected(self, path: str | os.PathLike[str]) -> bool:
        """True when a write to ``path`` (absolute) needs the user's approval."""
        given = Path(os.path.abspath(path))
        real = Path(os.path.realpath(path))
        return any(self._matches(p) for p in {given, real}) or _runs_or_is_shared(real)

    def _matches(self, path: Path) -> bool:
        relative = _relative(path, self.root)
        if relative is None:
            return True  # not ours to allow: outside the working directory
        if str(path).startswith(_SYSTEM) or path == self.home_bin or self.home_bin in path.parents:
            return True
        parts = tuple(part.lower() for part in relative.parts)
        if any(_contains(parts, d) for d in _DIRECTORIES):  # the directory, or a file of its name
            return True
        if parts[-2:] == ("webclient", "settings.json"):  # our own settings file (agents, their env)
            return True
        name = parts[-1] if parts else ""
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in _NAMES):
            return True
        return any(_matches_glob(parts, glob.lower()) for glob in self.extra)


def is_protected(path: str | os.PathLike[str], root: Path, extra: Sequence[str] = ()) -> bool:
    """Whether a write to ``path`` inside ``root`` needs the user's approval (see `ProtectedPaths`)."""
    return ProtectedPaths(root, extra).is_protected(path)


def _relative(path: Path, root: Path) -> PurePosixPath | None:
    try:
        return PurePosixPath(path.relative_to(root).as_posix())
    except ValueError:
        return None


def _contains(directories: tuple[str, ...], segment: tuple[str, ...]) -> bool:
    """Whether ``segment`` occurs as consecutive directories of the path."""
    width = len(segment)
    return any(directories[i : i + width] == segment for i in range(len(directories) - width + 1))


def _matches_glob(parts: tuple[str, ...], glob: str) -> bool:
    if glob.endswith("/"):
        pattern = glob.rstrip("/")
        directories = parts[:-1]
        as_name = any(fnmatch.fnmatchcase(d, pattern) for d in directories)
        as_path = any(fnmatch.fnmatchcase("/".join(directories[:i]), pattern) for i in range(1, len(parts)))
        return as_name or as_path
    return fnmatch.fnmatchcase("/".join(parts), glob) or fnmatch.fnmatchcase(parts[-1], glob)


def _runs_or_is_shared(real: Path) -> bool:
    """An existing file with an executable bit (a script, a hook), or with another hard link (a write
    here changes a file elsewhere, perhaps a hook)."""
    try:
        info = real.stat()
    except OSError:
        return False  # nothing there yet: a new file (created without an executable bit)
    if not stat.S_ISREG(info.st_mode):
        return False
    return bool(info.st_mode & 0o111) or info.st_nlink > 1
