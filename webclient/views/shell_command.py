"""A command line the page asks the user to run (a terminal sign-in), written so that what shows is what
runs: every word quoted for a POSIX shell, and anything a reader could not see written as an escape.

The agent names the variables and arguments: a name such as `$(curl …|sh)` would be shell code if shown
bare, a right-to-left override (U+202E) would make the line read differently from what runs, and a name
with `=` or a NUL cannot be a variable's at all. Pure functions, no HTML.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from webclient.agent_config import is_env_name
from webclient.domain.sign_in import TerminalCommand
from webclient.views.hidden_chars import has_hidden, is_hidden

# Words a shell takes as they are (shlex's own set).
_PLAIN = re.compile(r"[\w@%+=:,./-]+", re.ASCII)
_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


@dataclass(frozen=True)
class ShownCommand:
    """The command line as the page shows it, and what the page says about it."""

    text: str
    odd_names: tuple[str, ...] = ()  # variable names that are not letters, digits and _, as shown
    left_out: tuple[str, ...] = ()  # names no variable can have (with `=` or a NUL), as shown
    escaped: bool = False  # some word holds characters a reader cannot see, written as escapes


def shell_word(text: str) -> str:
    """`text` as one word for a POSIX shell: as it is when plain, else in single quotes; with any
    hidden or non-printing character, in `$'…'` with that character written as `\\uXXXX` (bash, zsh and
    POSIX.1-2024 shells read it back as the same character), so the reader sees every one."""
    if _PLAIN.fullmatch(text):
        return text
    if not _needs_escapes(text):
        return shlex.quote(text)
    return "$'" + "".join(_escape(char) for char in text) + "'"


def shown_command(command: TerminalCommand) -> ShownCommand:
    """The line to run: the variables (a name that cannot be a variable's left out), then the words."""
    usable = [(k, v) for k, v in command.env if k and "=" not in k and "\0" not in k and "\0" not in v]
    left_out = tuple(shell_word(k) for k, v in command.env if (k, v) not in usable)
    odd = tuple(shell_word(k) for k, _ in usable if not is_env_name(k))
    words = [shell_word(word) for word in command.argv]
    if odd:  # a shell takes `NAME=value` before a command only for a plain name; env(1) takes any
        assignments = ["env", *(shell_word(f"{k}={v}") for k, v in usable)]
    else:
        assignments = [f"{k}={shell_word(v)}" for k, v in usable]
    text = " ".join([*assignments, *words])
    return ShownCommand(text=text, odd_names=odd, left_out=left_out, escaped="$'" in text)


def _needs_escapes(text: str) -> bool:
    return has_hidden(text) or not text.isprintable()


def _escape(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    if is_hidden(char) or not char.isprintable():
        code = ord(char)
        return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
    return char
