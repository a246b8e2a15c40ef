"""The uvicorn server the command builds for its settings."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

from webclient.web.cli import _missing_command, build_server, main, settings_from_args


def test_websocket_frames_are_compressed_only_beyond_loopback(tmp_path: Path) -> None:
    local = settings_from_args(["--cwd", str(tmp_path), "--no-browser"])
    remote = settings_from_args(["--cwd", str(tmp_path), "--host", "0.0.0.0", "--allow-remote"])
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # only its port number is read; nothing listens
        assert build_server(local, sock).config.ws_per_message_deflate is False
        assert build_server(remote, sock).config.ws_per_message_deflate is True


def test_an_agent_command_that_is_not_found_stops_the_start_with_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["--agent", "no-such-agent-acp --flag", "--cwd", str(tmp_path), "--no-browser", "--port", "0"]
    )
    captured = capsys.readouterr()
    err = captured.err
    assert code == 2
    assert "the agent command 'no-such-agent-acp' was not found" in err
    assert "Check --agent" in err and "npm i -g @zed-industries/codex-acp" in err
    assert "is running" not in captured.out


def test_a_command_that_is_found_or_the_demo_agent_passes_the_check(tmp_path: Path) -> None:
    assert _missing_command(settings_from_args(["--agent", sys.executable, "--cwd", str(tmp_path)])) is None
    assert _missing_command(settings_from_args(["--cwd", str(tmp_path)])) is None
