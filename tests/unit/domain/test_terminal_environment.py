"""What a command the agent runs in a client terminal gets of the user's environment."""

from __future__ import annotations

import pytest

from webclient.domain.terminals import command_environment


def test_a_command_gets_the_users_environment_without_webclients_own_nor_anything_holding_the_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    token = "tok-" + "z" * 40
    monkeypatch.setenv("WEBCLIENT_PORT", "8000")
    monkeypatch.setenv("OPEN_URL", f"http://127.0.0.1:8000/?token={token}")
    monkeypatch.setenv("EDITOR", "vi")

    env = command_environment((("ASKED", "1"),), (token,))

    assert "OPEN_URL" not in env and "WEBCLIENT_PORT" not in env
    assert env["EDITOR"] == "vi" and env["ASKED"] == "1"
    assert "OPEN_URL" in command_environment(())  # nothing hidden: only webclient's own go
