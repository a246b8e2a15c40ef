"""The settings file's models: what a good file gives, and the sentence each bad value gets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webclient.agent_config import McpServer, parse_config
from webclient.settings_file import ConfigError, read_settings_file

FILE = Path("/home/me/.config/webclient/settings.json")


def test_the_rest_of_a_zed_settings_file_is_left_alone() -> None:
    text = """{
      "theme": "One Dark",  // Zed's own settings, and keys of an entry we do not use
      "agent_servers": {"A": {"command": "a", "default_model": "big", "args": ["--acp"]}},
      "context_servers": null,
    }"""
    config = parse_config(text, FILE)
    assert [(a.key, a.argv) for a in config.agents] == [("A", ("a", "--acp"))]
    assert config.mcp_servers == ()


def test_zeds_older_mcp_shape_and_an_extensions_entry() -> None:
    text = json.dumps(
        {
            "context_servers": {
                "old": {"command": {"path": "mcp-old", "args": ["-v"], "env": {"K": "v"}}},
                "extension": {"source": "extension", "settings": {}},
                "web": {"url": "https://mcp.example.invalid", "headers": {"X-Api-Key": "k"}},
            }
        }
    )
    assert parse_config(text, FILE).mcp_servers == (
        McpServer(name="old", command="mcp-old", args=("-v",), env={"K": "v"}),
        # A header's name is not an environment variable's: a dash in it is fine.
        McpServer(name="web", url="https://mcp.example.invalid", headers={"X-Api-Key": "k"}),
    )


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ({"A": {"command": 5}}, 'agent_servers.A: "command" is not a non-empty string'),
        ({"A": {"command": "  "}}, 'agent_servers.A: "command" is not a non-empty string'),
        ({"A": {"command": "a", "args": "--acp"}}, "agent_servers.A.args: must be a list of strings"),
        ({"A": {"command": "a", "env": {"K": 1}}}, "agent_servers.A.env: must be an object of string values"),
        ({"A": {"command": "a", "env": {"K": "a\0b"}}}, "agent_servers.A.env.K: a value cannot hold a NUL"),
        ({"A": {"command": "a", "env": {"1K": "v"}}}, "agent_servers.A.env: '1K' cannot be the name"),
        ({"A": {"command": "a", "url": "wss://h/acp"}}, 'agent_servers.A: has both a "command" and a "url"'),
        ({"A": {"url": "wss://h/acp", "localTools": "yes"}}, 'agent_servers.A: "localTools" must be true'),
        ({"A": {"url": None}}, 'agent_servers.A: "url" is not a non-empty string'),
    ],
)
def test_a_bad_agent_entry_is_said_with_its_place_in_the_file(entry: object, said: str) -> None:
    with pytest.raises(ConfigError) as raised:
        read_and_convert({"agent_servers": entry})
    assert str(raised.value).startswith(f"{FILE}: {said}")


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ({"m": "mcp-files"}, "context_servers.m: must be an object"),
        ({"m": {"command": "x", "args": [1]}}, "context_servers.m.args: must be a list of strings"),
        ({"m": {"command": "x", "env": []}}, "context_servers.m.env: must be an object of string values"),
        ({"m": {"url": 8080}}, 'context_servers.m: "url" must be an http or https URL'),
        ({"m": {"url": "https://h", "headers": {"A": None}}}, "context_servers.m.headers: must be an object"),
    ],
)
def test_a_bad_mcp_entry_is_said_with_its_place_in_the_file(entry: object, said: str) -> None:
    with pytest.raises(ConfigError) as raised:
        read_and_convert({"context_servers": entry})
    assert str(raised.value).startswith(f"{FILE}: {said}")


def test_a_section_of_the_wrong_type_is_named() -> None:
    with pytest.raises(ConfigError, match="'context_servers' must be an object of named entries"):
        read_settings_file('{"context_servers": ["files"]}', FILE)


def read_and_convert(data: object) -> None:
    parse_config(json.dumps(data), FILE)
