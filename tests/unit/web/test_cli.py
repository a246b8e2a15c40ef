"""The uvicorn server the command builds for its settings."""

from __future__ import annotations

import socket
from pathlib import Path

from webclient.web.cli import build_server, settings_from_args


def test_websocket_frames_are_compressed_only_beyond_loopback(tmp_path: Path) -> None:
    local = settings_from_args(["--cwd", str(tmp_path), "--no-browser"])
    remote = settings_from_args(["--cwd", str(tmp_path), "--host", "0.0.0.0", "--allow-remote"])
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # only its port number is read; nothing listens
        assert build_server(local, sock).config.ws_per_message_deflate is False
        assert build_server(remote, sock).config.ws_per_message_deflate is True
