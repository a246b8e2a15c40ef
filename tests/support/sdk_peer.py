"""The test agent built on the official ACP TypeScript SDK (`tests/peers/sdk_agent.mjs`), run with the
machine's Node.js: its command line, and the check that its packages are installed (`make peers`)."""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

import pytest

PEERS = Path(__file__).resolve().parents[2] / "tests" / "peers"
SDK_AGENT_FILE = PEERS / "sdk_agent.mjs"
SDK_PACKAGE = PEERS / "node_modules" / "@agentclientprotocol" / "sdk" / "package.json"


def sdk_agent_command() -> str:
    """The SDK agent's command line; skips the test where Node.js or the SDK is missing (outside CI,
    where their absence fails: `make test` installs both)."""
    node = shutil.which("node")
    missing = (
        "Node.js is not installed"
        if node is None
        else "the SDK's packages are not installed in tests/peers/ (run `make peers`)"
        if not SDK_PACKAGE.exists()
        else None
    )
    if missing is not None:
        if os.environ.get("CI"):
            pytest.fail(f"{missing}: CI runs the official SDK's test agent")
        pytest.skip(missing)
    assert node is not None
    return shlex.join([node, str(SDK_AGENT_FILE)])
