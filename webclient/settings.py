"""The one settings object: built from the command line and `WEBCLIENT_*` environment variables."""

from __future__ import annotations

import ipaddress
import os
import secrets
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from webclient.agent_config import (
    AgentCatalog,
    build_catalog,
    default_config_path,
    demo_agent,
    load_config,
)
from webclient.errors import SettingsError

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


def default_state_dir() -> Path:
    """`$XDG_STATE_HOME/webclient`, else `~/.local/state/webclient`."""
    xdg = os.environ.get("XDG_STATE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".local" / "state") / "webclient"


def demo_agent_argv() -> list[str]:
    """The bundled demo agent, run with the interpreter that runs us."""
    return list(demo_agent().argv)


class Settings(BaseSettings):
    """Everything the server needs to know, read once at start and passed down.

    `agent` names an entry of the settings file (`config`, or the XDG default) or is a shell-like
    command line; empty means the bundled demo agent. Agents only ever come from the command line, the
    environment or the settings file, never from a browser request. `agent_env` holds `KEY=VALUE`
    pairs added to every agent's environment.
    """

    model_config = SettingsConfigDict(env_prefix="WEBCLIENT_", frozen=True, extra="forbid")

    agent: str = ""
    config: Path | None = None
    agent_env: tuple[str, ...] = ()
    cwd: Path = Field(default_factory=Path.cwd)
    host: str = "127.0.0.1"
    port: int = Field(default=8765, ge=0, le=65535)
    allow_remote: bool = False
    open_browser: bool = True
    token: str = Field(default_factory=lambda: secrets.token_urlsafe(32), min_length=16)
    prompt_suggestions: bool = True
    jetbrains_air: bool = False
    suggestion_style: Literal["chips", "list", "ghost"] = "chips"
    # Presenter mode for a browser that has not chosen: larger type, no protocol details (the page's
    # Present button switches it, per browser).
    present: bool = False
    # The ACP version to offer: "auto" offers v2 and falls back to v1 for an agent that answers 1.
    protocol: Literal["auto", "1", "2"] = "auto"
    # Where webclient keeps what it learnt between starts (which ACP version each agent answered).
    state_dir: Path = Field(default_factory=default_state_dir)
    # Keep each used session's transcript in <state_dir>/transcripts/ (SQLite), within these bounds: the
    # oldest go first past the total size (MiB), and none is kept longer than the age (days). The page lists
    # them after a restart as stored copies, to read, copy and delete (WEBCLIENT_KEEP_TRANSCRIPTS=0: off).
    keep_transcripts: bool = True
    kept_transcripts_max_mb: int = Field(default=256, ge=1)
    kept_transcripts_max_days: float = Field(default=30.0, gt=0)
    initialize_timeout: float = Field(default=30.0, gt=0)
    # The frame budget: the least time between two live frames while changes keep coming (4 ms: a chunk
    # waits at most that long; a tab that has not taken its last frame holds the next one anyway). After a
    # quiet spell a change is sent at once, whatever this is.
    flush_interval: float = Field(default=0.004, ge=0)
    stderr_tail_lines: int = Field(default=30, ge=1)
    # Seconds an agent may take to end its turn after Cancel before the page offers to stop it.
    cancel_grace: float = Field(default=10.0, gt=0)
    # Globs added to the protected set (webclient.domain.protected); in the environment, a JSON list.
    protected: tuple[str, ...] = ()
    # A presentation study this server runs (webclient.views.study_config), and a project's own presets
    # (webclient.views.presets) that it, and the page, may use.
    study: Path | None = None
    presets: Path | None = None

    @field_validator("cwd")
    @classmethod
    def _cwd_is_a_directory(cls, value: Path) -> Path:
        resolved = value.expanduser().resolve()
        if not resolved.is_dir():
            raise ValueError(f"working directory {value} does not exist or is not a directory")
        return resolved

    @field_validator("agent_env")
    @classmethod
    def _pairs(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for pair in value:
            name, equals, _ = pair.partition("=")
            if not equals or not name.strip():
                raise ValueError(f"--agent-env takes KEY=VALUE, not {pair!r}")
        return value

    @cached_property
    def catalog(self) -> AgentCatalog:
        """The agents this server offers, read from the settings file once; raises ConfigError."""
        path = self.config.expanduser() if self.config else default_config_path()
        return build_catalog(self.agent, load_config(path, explicit=self.config is not None))

    @property
    def config_path(self) -> Path:
        """Where a remembered sign-in is written: the file given, or the XDG default."""
        return self.config.expanduser() if self.config else default_config_path()

    @property
    def extra_env(self) -> dict[str, str]:
        """The `--agent-env` pairs as a mapping."""
        return dict(pair.split("=", 1) for pair in self.agent_env)

    @property
    def agent_argv(self) -> list[str]:
        """The command of the agent the server starts with."""
        return list(self.catalog.default.argv)

    @property
    def uses_demo_agent(self) -> bool:
        return self.catalog.default.is_demo

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
