"""Agents on "another machine": real ACP servers on loopback that the remote-agent tests connect to.

- `acpremote_demo`: the `acpremote` package (PyPI, pinned in the test extra) serving the demo agent over
  WebSocket, one demo agent process per connection, as a team would run it beside an agent.
- `sdk_server`: the official TypeScript SDK's `AcpServer` serving the SDK test agent in both profiles
  (Streamable HTTP and WebSocket on one endpoint), `tests/peers/remote_server.mjs`.

Each runs in a process group of its own; `kill()` ends the whole group at once (the machine went away) and
`start()` brings it back on the same port, as a restarted server would be.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.polling import wait_until

PEERS = Path(__file__).resolve().parent.parent / "peers"
STARTUP_TIMEOUT = 60.0
TOKEN = "remote-test-token-0123456789"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1.0)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@dataclass
class RemoteServer:
    """One server process on loopback at `port`; `url` is its ACP endpoint (its scheme: `ws`)."""

    argv: Sequence[str]
    port: int
    path: str
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    process: subprocess.Popen[bytes] | None = None

    def url(self, scheme: str = "ws") -> str:
        return f"{scheme}://127.0.0.1:{self.port}{self.path}"

    def start(self) -> None:
        self.process = subprocess.Popen(
            list(self.argv),
            cwd=self.cwd,
            env={**os.environ, **self.env},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        process = self.process
        wait_until(
            lambda: process.poll() is not None or _listening(self.port),
            STARTUP_TIMEOUT,
            f"{self.argv[0]} listening on port {self.port}",
        )
        if process.poll() is not None:
            raise RuntimeError(f"{self.argv} exited with {process.returncode} before it listened")

    def kill(self) -> None:
        """The machine goes away: the server and every agent it runs end at once, mid-sentence."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)
        self.process = None


@contextlib.contextmanager
def running(server: RemoteServer) -> Iterator[RemoteServer]:
    server.start()
    try:
        yield server
    finally:
        server.kill()


def acpremote(
    command: Sequence[str], cwd: Path, *, token: str | None = None, env: Mapping[str, str] | None = None
) -> RemoteServer:
    """`acpremote expose` serving the stdio agent `command` at ws://127.0.0.1:PORT/acp/ws (a process of
    the agent for each connection); not started yet."""
    port = free_port()
    argv = [sys.executable, "-m", "acpremote", "expose", "--host", "127.0.0.1", "--port", str(port)]
    argv += ["--mount-path", "/acp", "--cwd", str(cwd)]
    if token is not None:
        argv += ["--bearer-token", token]
    return RemoteServer(argv=[*argv, "--", *command], port=port, path="/acp/ws", env=dict(env or {}), cwd=cwd)


def acpremote_demo(
    state: Path, cwd: Path, *, token: str | None = None, env: Mapping[str, str] | None = None
) -> RemoteServer:
    """`acpremote` serving the demo agent, which keeps its sessions in `state`."""
    agent_env = {"WEBCLIENT_DEMO_STATE_DIR": str(state), **(env or {})}
    return acpremote([sys.executable, "-m", "webclient.demo_agent"], cwd, token=token, env=agent_env)


def sdk_server(store: Path, *, token: str | None = None) -> RemoteServer:
    """The SDK's `AcpServer` with the SDK test agent at 127.0.0.1:PORT/acp (ws:// or http://); its
    sessions kept in `store`, so they outlive a restart. Not started yet."""
    node = shutil.which("node") or "node"
    port = free_port()
    argv = [node, str(PEERS / "remote_server.mjs"), "--port", str(port), "--path", "/acp"]
    if token is not None:
        argv += ["--token", token]
    return RemoteServer(argv=argv, port=port, path="/acp", env={"SDK_AGENT_STORE": str(store)}, cwd=PEERS)


def remote_settings_file(
    path: Path, url: str, *, token: str | None, local_tools: bool | None = None, cwd: Path | None = None
) -> Path:
    """A settings file whose agent `remote` is at `url`, its token read from $ACP_TEST_TOKEN."""
    entry: dict[str, object] = {"url": url}
    if cwd is not None:
        entry["cwd"] = str(cwd)
    if token is not None:
        entry["headers"] = {"Authorization": "Bearer ${ACP_TEST_TOKEN}"}
    if local_tools is not None:
        entry["localTools"] = local_tools
    path.write_text(json.dumps({"agent_servers": {"remote": entry}}), encoding="utf-8")
    return path


def hostile_http(mode: str) -> RemoteServer:
    """`tests/peers/hostile_http.py` in `mode` (flood, trickle, silent) at http://127.0.0.1:PORT/acp; not
    started yet."""
    port = free_port()
    argv = [sys.executable, str(PEERS / "hostile_http.py"), str(port), mode]
    return RemoteServer(argv=argv, port=port, path="/acp")
