"""The agents a server can run, read once from a settings file in Zed's format.

```jsonc
{
  "agent_servers": {
    "Claude": { "command": "claude-agent-acp", "args": [], "env": {} },  // comments are fine
  },
  "context_servers": { "files": { "command": "mcp-files", "args": ["--root", "."] } },
}
```

The file is JSON with comments and trailing commas, as Zed writes it; its shape is checked by the models
of `webclient.settings_file`. Every problem is a `ConfigError` whose text names the file, the entry and
what is wrong with it. The environment an
agent process gets is built here too: the user's own, without webclient's variables and secrets.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import json5

from webclient.errors import SettingsError
from webclient.remote_config import is_remote_url, local_tools, remote_cwd, remote_headers, remote_url
from webclient.settings_file import AgentEntry, McpEntry, read_settings_file

# Said here too, where the agents are: what the settings file's checks and a sign-in's share.
from webclient.settings_file import ConfigError as ConfigError
from webclient.settings_file import check_env as check_env
from webclient.settings_file import env_problem as env_problem
from webclient.settings_file import is_env_name as is_env_name

DEMO_KEY = "demo"
DEMO_NAME = "Demo agent"
# The agents the README names, and the line that installs each one's ACP adapter.
INSTALL_LINES: tuple[tuple[str, str], ...] = (
    ("Claude", "npm i -g @agentclientprotocol/claude-agent-acp"),
    ("Codex", "npm i -g @zed-industries/codex-acp"),
    ("Gemini CLI", "npm i -g @google/gemini-cli"),
)


# What webclient reads from the environment itself: never handed on to an agent.
OWN_PREFIX = "WEBCLIENT_"
# The bundled demo agent's own settings (its state folder); only the demo agent gets them.
DEMO_PREFIX = "WEBCLIENT_DEMO_"


@dataclass(frozen=True)
class AgentSpec:
    """One agent this server can run: `key` names it in the page, `name` is what people read.

    A remote agent has a `url` (and the `headers` sent with it) instead of a command; it may use the
    local files and terminals only with `local_tools` (see `webclient.remote_config`).
    """

    key: str
    name: str
    argv: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    is_demo: bool = False
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    local_tools: bool = True
    cwd: str | None = None  # a remote agent's working directory on its own machine (None: webclient's)

    @property
    def remote(self) -> bool:
        return self.url is not None

    @property
    def command_line(self) -> str:
        return self.url if self.url is not None else shlex.join(self.argv)


@dataclass(frozen=True)
class McpServer:
    """An MCP server from `context_servers`, handed to each agent session that starts: a command run
    over stdio (every agent takes these), or a `url` (only for agents that advertise HTTP MCP)."""

    name: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class AgentConfig:
    """What the settings file says (nothing, when there is no file)."""

    path: Path | None = None
    agents: tuple[AgentSpec, ...] = ()
    mcp_servers: tuple[McpServer, ...] = ()

    def find(self, name: str) -> AgentSpec | None:
        return next((a for a in self.agents if a.key == name), None)


def default_config_path(environ: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/webclient/settings.json`, or `~/.config/webclient/settings.json`."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "webclient" / "settings.json"


def demo_agent() -> AgentSpec:
    """The bundled demo agent, run with our interpreter; it must find this very package, even from a
    source checkout that was never installed and when it runs in another working directory."""
    package_parent = str(Path(__file__).resolve().parent.parent)
    inherited = os.environ.get("PYTHONPATH")
    path = package_parent + (os.pathsep + inherited if inherited else "")
    argv = (sys.executable, "-m", "webclient.demo_agent")
    return AgentSpec(key=DEMO_KEY, name=DEMO_NAME, argv=argv, env={"PYTHONPATH": path}, is_demo=True)


def replay_agent(given: str) -> AgentSpec:
    """The bundled replay agent for `replay:RECORDING [--speed F]`, the recording's path made absolute."""
    path, *rest = command_agent(given.strip().removeprefix("replay:") or "''").argv
    if not (recording := Path(path).expanduser().resolve()).is_file():
        raise ConfigError(f"--agent {given!r}: names no recording (a protocol inspector download)")
    argv = (sys.executable, "-m", "webclient.replay_agent", str(recording), *rest)
    return AgentSpec(key="replay", name=f"Replay of {recording.name}", argv=argv, env=demo_agent().env)


def command_agent(command_line: str) -> AgentSpec:
    """An agent given as a command line (`--agent "gemini --acp"`), named after its program, or as
    the URL of a remote one (`--agent wss://host/acp`), named after its host."""
    if is_remote_url(command_line):
        url = command_line.strip()
        return AgentSpec(key="remote", name=_host(url), argv=(), url=url, local_tools=False)
    try:
        argv = tuple(shlex.split(command_line))
    except ValueError as exc:
        raise ConfigError(f"--agent {command_line!r}: {exc}") from None
    if not argv:
        raise ConfigError("--agent is empty")
    return AgentSpec(key="command", name=Path(argv[0]).name, argv=argv)


@dataclass(frozen=True)
class AgentCatalog:
    """Every agent a server offers: the one it starts with first, then the file's, then the demo agent."""

    default: AgentSpec
    agents: tuple[AgentSpec, ...]
    config: AgentConfig

    def get(self, key: str) -> AgentSpec | None:
        return next((a for a in self.agents if a.key == key), None)


def build_catalog(agent: str, config: AgentConfig) -> AgentCatalog:
    """`agent` names a settings entry, or is a command line, or is empty (the demo agent)."""
    demo = demo_agent()
    if not agent.strip():
        default = demo  # a plain start shows the offline demo; the file's agents are one click away
    elif (entry := config.find(agent.strip())) is not None:
        default = entry
    elif agent.strip().startswith("replay:"):  # `--agent replay:RECORDING`: it plays it back
        default = replay_agent(agent)
    else:
        given = command_agent(agent)
        # The same command (or URL) as an entry: that entry, with its environment (a remembered
        # sign-in) or its headers.
        default = next((a for a in config.agents if (a.url, a.argv) == (given.url, given.argv)), given)
    others = [a for a in (*config.agents, demo) if a.key != default.key]
    return AgentCatalog(default=default, agents=(default, *others), config=config)


# --- reading the file --------------------------------------------------------------------------------


def load_config(path: Path | None, *, explicit: bool) -> AgentConfig:
    """Read the settings file at `path`. A missing file is an error only when the user named it."""
    if path is None:
        return AgentConfig()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if explicit:
            raise ConfigError(f"{path}: no such file") from None
        return AgentConfig()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}") from None
    return parse_config(text, path)


def parse_config(text: str, path: Path) -> AgentConfig:
    """The settings in `text` (JSON with comments and trailing commas) as read from `path`."""
    found = read_settings_file(text, path)
    agents = tuple(_agent(name, entry, path) for name, entry in (found.agent_servers or {}).items())
    mcp = tuple(
        server
        for name, entry in (found.context_servers or {}).items()
        if (server := _mcp_server(name, entry)) is not None
    )
    return AgentConfig(path=path, agents=agents, mcp_servers=mcp)


def _agent(name: str, entry: AgentEntry, path: Path) -> AgentSpec:
    where = f"{path}: agent_servers.{name}"
    if not name.strip():
        raise ConfigError(f"{path}: agent_servers has an entry with an empty name")
    if name == DEMO_KEY:
        raise ConfigError(f"{where}: the name {DEMO_KEY!r} is taken by the bundled demo agent")
    if not entry.remote:
        assert entry.command is not None  # the entry's own check: a command or a url
        return AgentSpec(key=name, name=name, argv=(entry.command, *entry.args), env=entry.env)
    try:
        url = remote_url(entry.url, where)
        headers = remote_headers(entry.headers, where)
        tools = local_tools(entry.local_tools, where)
        cwd = remote_cwd(entry.cwd, where)
    except SettingsError as exc:
        raise ConfigError(str(exc)) from None
    return AgentSpec(key=name, name=name, argv=(), url=url, headers=headers, local_tools=tools, cwd=cwd)


def _host(url: str) -> str:
    """The host (and port) of a URL, without its user info: what the page calls the agent."""
    return urlsplit(url).netloc.rpartition("@")[2] or url


def _mcp_server(name: str, entry: McpEntry) -> McpServer | None:
    """A `context_servers` entry with a command, or with an http(s) URL; others (extensions) are left out."""
    if entry.command is not None:
        return McpServer(name=name, command=entry.command, args=tuple(entry.args), env=entry.env or {})
    if entry.url is not None:
        return McpServer(name=name, url=entry.url, headers=entry.headers or {})
    return None


def mcp_servers_for(servers: Iterable[McpServer], *, http: bool) -> tuple[McpServer, ...]:
    """The servers an agent can use: stdio ones always, URL ones when it advertised HTTP MCP."""
    return tuple(s for s in servers if s.url is None or http)


# --- remembering a sign-in ---------------------------------------------------------------------------


def remember_env(path: Path, spec: AgentSpec, values: Mapping[str, str]) -> None:
    """Add `values` to the agent's entry in the settings file, which is readable by the user only.

    An agent given as a command line gets an entry named after its program, with its command, so the
    next start with the same `--agent` finds it. The file is rewritten as plain JSON (comments in it
    are not kept) through a temporary file created with mode 0600, so the secret is never readable by
    others, not even for a moment.
    """
    check_env(values, "the sign-in")
    data = json5.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    if not isinstance(data, dict) or not isinstance(data.setdefault("agent_servers", {}), dict):
        raise ConfigError(f"{path}: the file must hold one JSON object with an agent_servers object")
    servers: dict[str, Any] = data["agent_servers"]
    name = spec.key if spec.key in servers else _entry_for(servers, spec)
    entry = servers.setdefault(name, {"command": spec.argv[0], "args": list(spec.argv[1:])})
    if not isinstance(entry, dict):
        raise ConfigError(f"{path}: agent_servers.{name}: must be an object")
    entry.setdefault("env", {}).update(values)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.unlink(missing_ok=True)
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        json.dump(data, out, indent=2)
        out.write("\n")
    os.replace(temporary, path)


def _entry_for(servers: Mapping[str, Any], spec: AgentSpec) -> str:
    """The entry whose command is this agent's, or a free name for a new one."""
    for name, raw in servers.items():
        if isinstance(raw, dict) and (raw.get("command"), *raw.get("args", [])) == spec.argv:
            return name
    name, number = spec.name, 2
    while name in servers:
        name, number = f"{spec.name} {number}", number + 1
    return name


# --- the agent's environment -------------------------------------------------------------------------


def agent_environment(
    spec: AgentSpec,
    layers: Iterable[Mapping[str, str]],
    *,
    secrets: Iterable[str],
    environ: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment an agent process starts with.

    The user's own environment (API keys, base URLs, proxies: agents need them), without webclient's
    own `WEBCLIENT_*` variables and without any variable that carries one of `secrets` (the token).
    Then `layers` in order, each overriding the one before (`--agent-env`, the settings file's entry,
    a sign-in's values).
    """
    source = os.environ if environ is None else environ
    env = {
        key: value
        for key, value in source.items()
        if not key.startswith(OWN_PREFIX) or (spec.is_demo and key.startswith(DEMO_PREFIX))
    }
    for layer in layers:
        env.update(layer)
    hidden = [s for s in secrets if s]
    return {k: v for k, v in env.items() if not any(secret in v for secret in hidden)}
