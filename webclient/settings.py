"""The one settings object: built from the command line and `WEBCLIENT_*` environment variables."""

from __future__ import annotations

import ipaddress
import os
import secrets
import shlex
import sys
from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from webclient.errors import SettingsError

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


def demo_agent_argv() -> list[str]:
    """The bundled demo agent, run with the interpreter that runs us."""
    return [sys.executable, "-m", "webclient.demo_agent"]


class Settings(BaseSettings):
    """Everything the server needs to know, read once at start and passed down.

    `agent` is a shell-like command line; empty means the bundled demo agent. It only ever
    comes from the command line or the environment, never from a browser request.
    """

    model_config = SettingsConfigDict(env_prefix="WEBCLIENT_", frozen=True, extra="forbid")

    agent: str = ""
    cwd: Path = Field(default_factory=Path.cwd)
    host: str = "127.0.0.1"
    port: int = Field(default=8765, ge=0, le=65535)
    allow_remote: bool = False
    open_browser: bool = True
    token: str = Field(default_factory=lambda: secrets.token_urlsafe(32), min_length=16)
    prompt_suggestions: bool = True
    jetbrains_air: bool = False
    initialize_timeout: float = Field(default=30.0, gt=0)
    # The frame budget: the least time between two live frames while changes keep coming (4 ms: a chunk
    # waits at most that long; a tab that has not taken its last frame holds the next one anyway). After a
    # quiet spell a change is sent at once, whatever this is.
    flush_interval: float = Field(default=0.004, ge=0)
    stderr_tail_lines: int = Field(default=30, ge=1)

    @field_validator("cwd")
    @classmethod
    def _cwd_is_a_directory(cls, value: Path) -> Path:
        resolved = value.expanduser().resolve()
        if not resolved.is_dir():
            raise ValueError(f"working directory {value} does not exist or is not a directory")
        return resolved

    @property
    def agent_argv(self) -> list[str]:
        """The agent command split into argv; the demo agent when none was given."""
        if not self.agent.strip():
            return demo_agent_argv()
        return shlex.split(self.agent)

    @property
    def uses_demo_agent(self) -> bool:
        return not self.agent.strip()

    @property
    def agent_env(self) -> dict[str, str]:
        """Extra environment for the agent: the demo agent must find this very package, even from a
        source checkout that was never installed and when it runs in another working directory."""
        if not self.uses_demo_agent:
            return {}
        package_parent = str(Path(__file__).resolve().parent.parent)
        inherited = os.environ.get("PYTHONPATH")
        return {"PYTHONPATH": package_parent + (os.pathsep + inherited if inherited else "")}

    def check_host(self) -> None:
        """Refuse a non-loopback bind address unless `allow_remote` was given explicitly."""
        if is_loopback(self.host) or self.allow_remote:
            return
        raise SettingsError(
            f"refusing to listen on {self.host!r}: whoever reaches this server can run code on this "
            "machine through the agent. Pass --allow-remote to do it anyway (the token is still required)."
        )


def is_loopback(host: str) -> bool:
    """True for names and addresses that only this machine can reach."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
