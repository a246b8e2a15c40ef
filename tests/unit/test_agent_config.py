"""The settings file in Zed's format, the agent catalog, remembered sign-ins, and the agent's env."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from webclient.acp.capabilities import client_capabilities
from webclient.agent_config import (
    AgentSpec,
    ConfigError,
    McpServer,
    agent_environment,
    build_catalog,
    default_config_path,
    load_config,
    mcp_servers_for,
    parse_config,
    remember_env,
)
from webclient.settings import Settings

ZED_STYLE = """
// webclient reads the same file Zed keeps
{
  "agent_servers": {
    "Claude": {"command": "claude-agent-acp", "args": [], "env": {"ANTHROPIC_LOG": "debug"},},
    /* two words */ "Gemini": {"command": "gemini", "args": ["--acp"]},
  },
  "context_servers": {
    "files": {"source": "custom", "command": "mcp-files", "args": ["--root", "."], "env": {}},
    "remote": {"url": "https://mcp.example.invalid"},
  },
}
"""


def test_comments_and_trailing_commas_are_read_as_zed_writes_them(tmp_path: Path) -> None:
    config = parse_config(ZED_STYLE, tmp_path / "settings.json")
    assert [(a.key, a.argv, dict(a.env)) for a in config.agents] == [
        ("Claude", ("claude-agent-acp",), {"ANTHROPIC_LOG": "debug"}),
        ("Gemini", ("gemini", "--acp"), {}),
    ]
    assert config.mcp_servers == (
        McpServer(name="files", command="mcp-files", args=("--root", ".")),
        McpServer(name="remote", url="https://mcp.example.invalid"),
    )
    assert mcp_servers_for(config.mcp_servers, http=False) == config.mcp_servers[:1]
    assert mcp_servers_for(config.mcp_servers, http=True) == config.mcp_servers


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"agent_servers": {"A": {}}}', 'agent_servers.A: "command" is missing'),
        ('{"agent_servers": {"A": "claude"}}', "agent_servers.A: must be an object"),
        ('{"agent_servers": {"A": {"command": "a", "args": [1]}}}', "agent_servers.A.args: must be a list"),
        ('{"agent_servers": {"A": {"command": "a", "env": []}}}', "agent_servers.A.env: must be an object"),
        ('{"agent_servers": {"demo": {"command": "a"}}}', "agent_servers.demo: the name 'demo' is taken"),
        ('{"context_servers": {"m": {"command": ""}}}', 'context_servers.m: "command" is not'),
        ('{"context_servers": {"m": {"url": "file:///etc"}}}', 'context_servers.m: "url" must be an http'),
        ('{"agent_servers": 3}', "'agent_servers' must be an object"),
        ("[1]", "must hold one JSON object"),
        ('{"agent_servers": {"A": {"command": "a"}', "not valid JSON"),
    ],
)
def test_every_problem_names_the_file_and_the_entry(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "settings.json"
    with pytest.raises(ConfigError) as raised:
        parse_config(text, path)
    assert str(raised.value).startswith(f"{path}: ")
    assert problem in str(raised.value)


def test_a_missing_file_is_an_error_only_when_named(tmp_path: Path) -> None:
    assert load_config(tmp_path / "absent.json", explicit=False).agents == ()
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "absent.json", explicit=True)


def test_the_default_file_is_in_the_xdg_config_folder(tmp_path: Path) -> None:
    assert default_config_path({"XDG_CONFIG_HOME": str(tmp_path)}) == tmp_path / "webclient" / "settings.json"


def test_agent_picks_an_entry_by_name_or_runs_a_command_and_the_demo_is_always_offered(
    tmp_path: Path,
) -> None:
    config = parse_config(ZED_STYLE, tmp_path / "s.json")
    named = build_catalog("Gemini", config)
    assert named.default.key == "Gemini"
    assert [a.key for a in named.agents] == ["Gemini", "Claude", "demo"]
    command = build_catalog("codex-acp --verbose", config)
    assert command.default.argv == ("codex-acp", "--verbose") and command.default.name == "codex-acp"
    assert [a.key for a in command.agents] == ["command", "Claude", "Gemini", "demo"]
    plain = build_catalog("", config)
    assert plain.default.is_demo and [a.key for a in plain.agents] == ["demo", "Claude", "Gemini"]
    # A command that is an entry's command is that entry, with its environment.
    assert build_catalog("gemini --acp", config).default.key == "Gemini"


def test_remembering_writes_the_agents_entry_readable_by_the_user_only(tmp_path: Path) -> None:
    path = tmp_path / "webclient" / "settings.json"
    spec = AgentSpec(key="command", name="codex-acp", argv=("codex-acp",))
    remember_env(path, spec, {"OPENAI_API_KEY": "sk-1"})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data = json.loads(path.read_text())
    assert data == {
        "agent_servers": {
            "codex-acp": {"command": "codex-acp", "args": [], "env": {"OPENAI_API_KEY": "sk-1"}}
        }
    }
    path.chmod(0o644)
    remember_env(path, spec, {"OPENAI_BASE_URL": "http://127.0.0.1:9"})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    env = json.loads(path.read_text())["agent_servers"]["codex-acp"]["env"]
    assert env == {"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "http://127.0.0.1:9"}


@pytest.mark.parametrize(("values", "why"), [({"A=B": "x"}, "cannot be the name"), ({"KEY": "a\0b"}, "NUL")])
def test_a_variable_no_process_could_start_with_is_refused_and_never_saved(
    tmp_path: Path, values: dict[str, str], why: str
) -> None:
    path = tmp_path / "webclient" / "settings.json"
    spec = AgentSpec(key="command", name="codex-acp", argv=("codex-acp",))
    with pytest.raises(ConfigError, match=why):
        remember_env(path, spec, values)
    assert not path.exists()
    broken = json.dumps({"agent_servers": {"x": {"command": "x", "env": values}}})
    with pytest.raises(ConfigError, match=why):
        parse_config(broken, path)


def test_the_agents_environment_is_the_users_without_webclients_own_and_without_the_token() -> None:
    token = "t" * 40
    user = {
        "PATH": "/usr/bin",
        "OPENAI_API_KEY": "sk-1",
        "WEBCLIENT_TOKEN": token,
        "WEBCLIENT_AGENT": "x",
        "WEBCLIENT_DEMO_STATE_DIR": "/tmp/demo",
        "COPIED": f"Bearer {token}",
    }
    spec = AgentSpec(key="a", name="a", argv=("a",))
    env = agent_environment(spec, ({"A": "cli", "B": "cli"}, {"B": "file"}), secrets=(token,), environ=user)
    assert env == {"PATH": "/usr/bin", "OPENAI_API_KEY": "sk-1", "A": "cli", "B": "file"}
    demo = AgentSpec(key="demo", name="Demo", argv=(sys.executable,), is_demo=True)
    assert (
        agent_environment(demo, (), secrets=(token,), environ=user)["WEBCLIENT_DEMO_STATE_DIR"] == "/tmp/demo"
    )


def test_terminal_sign_in_is_advertised_since_the_page_shows_its_command() -> None:
    caps = client_capabilities(prompt_suggestions=True, jetbrains_air=False)
    assert caps["auth"] == {"terminal": True}


def test_agent_env_takes_key_value_pairs(tmp_path: Path) -> None:
    assert Settings(cwd=tmp_path, agent_env=("A=1", "B=x=y")).extra_env == {"A": "1", "B": "x=y"}
    with pytest.raises(ValidationError, match="KEY=VALUE"):
        Settings(cwd=tmp_path, agent_env=("JUSTANAME",))
