"""What `--protocol auto` costs each agent at start-up, measured with the agents themselves.

For every agent command given (or, without one, the SDK test agent and the ACP Python SDK's), three
starts through webclient's own supervisor, each until the agent has answered `initialize` in the
version it speaks (it is then ready, or asks to sign in) or has failed: `auto` with
nothing remembered (a v1 agent is started twice), `auto` again with what the first start remembered in
the state folder, and `--protocol 1`. Prints the times in seconds and their ratios to the `--protocol 1`
start measured in the same run.

    .venv/bin/python bench/startup_versions.py "claude-agent-acp" "codex-acp" "gemini --experimental-acp"
"""

from __future__ import annotations

import asyncio
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import Literal

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.support.driver import SessionDriver
from tests.support.polling import eventually
from webclient.acp.models import AgentStatus
from webclient.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_AGENTS = (
    shlex.join(["node", str(ROOT / "tests" / "peers" / "sdk_agent.mjs")]),
    shlex.join([sys.executable, str(ROOT / "tests" / "agents" / "sdk_agent.py")]),
)


async def start(
    agent: str, protocol: Literal["auto", "1"], state: Path, workspace: Path
) -> tuple[float, str]:
    """Seconds until the agent answered `initialize` in the version it speaks (it is then ready, or asks
    to sign in) or failed, and what it came to."""
    began = time.monotonic()
    settings = Settings(agent=agent, cwd=workspace, protocol=protocol, state_dir=state, open_browser=False)
    driver = SessionDriver(settings)
    await driver.start()
    try:
        await eventually(lambda: driver.state.agent_status is not AgentStatus.STARTING, 120, "the agent")
        took = time.monotonic() - began
        status = driver.state.agent_status
        outcome = f"v{driver.state.protocol_version} ({status.value})"
    finally:
        await driver.shutdown()
    return took, outcome


async def measure(agent: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        state, workspace = Path(folder) / "state", Path(folder)
        first, version = await start(agent, "auto", state, workspace)
        remembered, _ = await start(agent, "auto", state, workspace)
        v1, _ = await start(agent, "1", state / "unused", workspace)
    print(
        f"{agent}\n  speaks {version}: auto, first start {first:.2f} s ({first / v1:.2f}x); auto, remembered "
        f"{remembered:.2f} s ({remembered / v1:.2f}x); --protocol 1 {v1:.2f} s (1.00x)"
    )


async def main(agents: list[str]) -> None:
    for agent in agents or DEFAULT_AGENTS:
        await measure(agent)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
