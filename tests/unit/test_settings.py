"""The settings object: loopback-only by default, the demo agent when none is given, a real cwd."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from webclient.errors import SettingsError
from webclient.settings import Settings, demo_agent_argv, is_loopback
from webclient.web.cli import settings_from_args


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings read WEBCLIENT_* variables; a developer's shell must not leak into these tests."""
    for name in list(os.environ):
        if name.upper().startswith("WEBCLIENT_"):
            monkeypatch.delenv(name)


def settings(tmp_path: Path, **values: object) -> Settings:
    return Settings(cwd=tmp_path, **values)  # type: ignore[arg-type]


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "[::1]", "localhost", "127.5.5.5", "127.0.0.2"])
def test_loopback_hosts_are_recognised(host: str) -> None:
    assert is_loopback(host) is True


@pytest.mark.parametrize(
    "host", ["0.0.0.0", "::", "192.168.1.1", "10.0.0.1", "example.com", "localhost.example.com", "", "[::]"]
)
def test_non_loopback_hosts_are_not_loopback(host: str) -> None:
    assert is_loopback(host) is False


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.1", "example.com"])
def test_check_host_refuses_a_non_loopback_address_without_allow_remote(tmp_path: Path, host: str) -> None:
    with pytest.raises(SettingsError, match="--allow-remote"):
        settings(tmp_path, host=host).check_host()


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.1", "example.com"])
def test_check_host_accepts_a_non_loopback_address_with_allow_remote(tmp_path: Path, host: str) -> None:
    settings(tmp_path, host=host, allow_remote=True).check_host()


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
def test_check_host_accepts_loopback_without_allow_remote(tmp_path: Path, host: str) -> None:
    settings(tmp_path, host=host).check_host()


def test_default_host_is_loopback(tmp_path: Path) -> None:
    assert is_loopback(settings(tmp_path).host)


@pytest.mark.parametrize("agent", ["", "   ", "\t\n"])
def test_empty_agent_means_the_bundled_demo_agent(tmp_path: Path, agent: str) -> None:
    chosen = settings(tmp_path, agent=agent)
    assert chosen.agent_argv == [sys.executable, "-m", "webclient.demo_agent"] == demo_agent_argv()
    assert chosen.uses_demo_agent is True


def test_agent_command_line_is_split_like_a_shell(tmp_path: Path) -> None:
    chosen = settings(tmp_path, agent="npx @zed/claude-code-acp --model 'big one' \"x y\"")
    assert chosen.agent_argv == ["npx", "@zed/claude-code-acp", "--model", "big one", "x y"]
    assert chosen.uses_demo_agent is False


def test_agent_comes_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBCLIENT_AGENT", "my-agent --acp")
    assert Settings(cwd=tmp_path).agent_argv == ["my-agent", "--acp"]


def test_cwd_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="does not exist"):
        Settings(cwd=tmp_path / "missing")


def test_cwd_must_be_a_directory(tmp_path: Path) -> None:
    file = tmp_path / "file.txt"
    file.write_text("x")
    with pytest.raises(ValidationError, match="not a directory"):
        Settings(cwd=file)


def test_cwd_is_resolved_to_an_absolute_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "project").mkdir()
    monkeypatch.chdir(tmp_path)
    assert Settings(cwd=Path("project")).cwd == (tmp_path / "project").resolve()


def test_each_start_gets_a_fresh_long_token(tmp_path: Path) -> None:
    one, two = settings(tmp_path), settings(tmp_path)
    assert one.token != two.token
    assert len(one.token) >= 32


def test_a_short_token_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValidationError):
        settings(tmp_path, token="short")


@pytest.mark.parametrize("port", [-1, 65536])
def test_port_outside_the_tcp_range_is_refused(tmp_path: Path, port: int) -> None:
    with pytest.raises(ValidationError):
        settings(tmp_path, port=port)


def test_unknown_settings_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValidationError):
        settings(tmp_path, colour="blue")


def test_settings_are_frozen(tmp_path: Path) -> None:
    chosen = settings(tmp_path)
    with pytest.raises(ValidationError):
        chosen.host = "0.0.0.0"


def test_protected_globs_come_from_the_command_line_or_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from webclient.web.cli import settings_from_args

    chosen = settings_from_args(["--cwd", str(tmp_path), "--protected", "*.lock", "--protected", "secrets/"])
    assert chosen.protected == ("*.lock", "secrets/")
    assert settings_from_args(["--cwd", str(tmp_path)]).protected == ()
    monkeypatch.setenv("WEBCLIENT_PROTECTED", '["deploy/"]')
    assert settings_from_args(["--cwd", str(tmp_path)]).protected == ("deploy/",)


def test_suggestion_style_defaults_to_chips_and_comes_from_the_command_line(tmp_path: Path) -> None:
    assert settings_from_args(["--cwd", str(tmp_path)]).suggestion_style == "chips"
    chosen = settings_from_args(["--cwd", str(tmp_path), "--suggestion-style", "ghost"])
    assert chosen.suggestion_style == "ghost"
    with pytest.raises(SystemExit):
        settings_from_args(["--cwd", str(tmp_path), "--suggestion-style", "carousel"])


def test_suggestion_style_comes_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBCLIENT_SUGGESTION_STYLE", "list")
    assert Settings(cwd=tmp_path).suggestion_style == "list"


def test_transcripts_are_kept_unless_the_environment_turns_it_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert Settings(cwd=tmp_path).keep_transcripts is True
    monkeypatch.setenv("WEBCLIENT_KEEP_TRANSCRIPTS", "0")
    assert Settings(cwd=tmp_path).keep_transcripts is False


def test_presenter_mode_is_off_unless_asked_for_on_the_command_line_or_in_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert settings_from_args(["--cwd", str(tmp_path)]).present is False
    assert settings_from_args(["--cwd", str(tmp_path), "--present"]).present is True
    monkeypatch.setenv("WEBCLIENT_PRESENT", "1")
    assert Settings(cwd=tmp_path).present is True
