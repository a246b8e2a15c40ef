"""The uvicorn server the command builds for its settings."""

from __future__ import annotations

import signal
import socket
import sys
from pathlib import Path

import pytest

from webclient.web.cli import _Interrupt, _missing_command, build_server, main, serve, settings_from_args


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


def test_a_study_file_that_does_not_validate_stops_the_start_with_its_field_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    study = tmp_path / "study.toml"
    study.write_text('name = "x"\npresets = ["chips", "list"]\nassignment = "random"\n')
    code = main(["--study", str(study), "--cwd", str(tmp_path), "--no-browser", "--port", "0"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{study} line 3: assignment: Input should be 'alternating' or 'shuffled'" in err


def test_a_study_with_a_recording_runs_the_replay_agent_unless_an_agent_is_named(tmp_path: Path) -> None:
    (tmp_path / "session.jsonl").write_text("{}\n")
    study = tmp_path / "study.json"
    study.write_text('{"name": "s", "presets": ["chips", "list"], "replay": "session.jsonl"}')
    settings = settings_from_args(["--study", str(study), "--cwd", str(tmp_path)])
    assert settings.agent == f"replay:{tmp_path / 'session.jsonl'}"
    assert settings.catalog.default.argv[1:3] == ("-m", "webclient.replay_agent")
    named = settings_from_args(["--study", str(study), "--cwd", str(tmp_path), "--agent", sys.executable])
    assert named.agent == sys.executable


def test_a_presets_file_names_its_mistake(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    presets = tmp_path / "presets.toml"
    presets.write_text('[[presets]]\nname = "tight"\ndensity = "airy"\n')
    study = tmp_path / "study.json"
    study.write_text('{"name": "s", "presets": ["chips", "tight"]}')
    code = main(["--study", str(study), "--presets", str(presets), "--cwd", str(tmp_path), "--no-browser"])
    assert code == 2
    assert "presets[0]: density: Input should be 'comfortable' or 'compact'" in capsys.readouterr().err


def test_a_ctrl_c_while_the_server_is_built_stops_it_before_it_serves(tmp_path: Path) -> None:
    """Ctrl+C before uvicorn takes the signal over is remembered, not raised wherever the import is (a C
    callback there swallows a KeyboardInterrupt and the server then served on)."""
    settings = settings_from_args(["--cwd", str(tmp_path), "--port", "0"])
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    interrupt = _Interrupt()
    interrupt(signal.SIGINT, None)  # pressed while the server was being imported
    serve(settings, sock, interrupt)  # returns at once instead of serving
    assert sock.fileno() == -1  # closed: nothing listens


def test_a_ctrl_c_once_the_server_is_built_asks_it_to_stop(tmp_path: Path) -> None:
    settings = settings_from_args(["--cwd", str(tmp_path), "--port", "0"])
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        server = build_server(settings, sock)
        interrupt = _Interrupt()
        assert not interrupt.take(server)
        interrupt(signal.SIGINT, None)  # before uvicorn's own handler: it stops as soon as it has started
        assert server.should_exit
