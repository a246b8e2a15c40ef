"""TLS to a remote agent is verified: a server whose certificate no trusted authority signed (here a
self-signed one, made with openssl for the test) is refused over wss:// and https://, with an error that
says so, and is not tried again."""

from __future__ import annotations

import os
import shutil
import ssl
import subprocess
from pathlib import Path

import pytest
from websockets.asyncio.server import ServerConnection, serve

from webclient.acp.remote import RemoteAgent
from webclient.errors import RemoteRefused


def self_signed(directory: Path) -> ssl.SSLContext:
    openssl = shutil.which("openssl")
    if openssl is None:
        if os.environ.get("CI"):
            pytest.fail("openssl is not installed: CI must test TLS to a remote agent")
        pytest.skip("openssl is not installed: no certificate to test TLS with")
    key, cert = directory / "key.pem", directory / "cert.pem"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


async def never_reached(socket: ServerConnection) -> None:
    raise AssertionError("the handshake must fail before any ACP message")


@pytest.mark.parametrize("scheme", ["wss", "https"])
async def test_a_certificate_that_does_not_verify_is_refused_with_a_clear_error(
    tmp_path: Path, scheme: str
) -> None:
    async with serve(never_reached, "127.0.0.1", 0, ssl=self_signed(tmp_path)) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        agent = RemoteAgent(f"{scheme}://127.0.0.1:{port}/acp", {})
        try:
            with pytest.raises(RemoteRefused, match=r"could not connect to .* securely: its TLS certificate"):
                await agent.start()  # a WebSocket connects here; Streamable HTTP with its initialize
                channel = agent.channel(lambda line: None)
                await channel.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}})
        finally:
            await agent.stop()
