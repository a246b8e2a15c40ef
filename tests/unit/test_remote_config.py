"""Remote agents in the settings: `--agent URL`, a settings entry with `url`, `headers` and `localTools`,
secrets from the environment, and what a remote agent is offered in `initialize`."""

from __future__ import annotations

from pathlib import Path

import pytest

from webclient.acp.capabilities import initialize_params
from webclient.acp.remote import shown_url
from webclient.acp.remote.refusals import http_refusal, refusal
from webclient.agent_config import ConfigError, build_catalog, command_agent, parse_config
from webclient.errors import SettingsError
from webclient.remote_config import expand, is_remote_url

FILE = Path("/home/u/.config/webclient/settings.json")


@pytest.mark.parametrize(
    "text", ["ws://box:8080/acp", "wss://box.example.com/acp", "http://127.0.0.1:9/acp", "https://h/acp"]
)
def test_ws_wss_http_and_https_urls_name_remote_agents(text: str) -> None:
    assert is_remote_url(text)
    spec = command_agent(text)
    assert spec.remote and spec.url == text and spec.argv == ()
    assert spec.command_line == text
    assert not spec.local_tools  # given on the command line: no local files or terminals


@pytest.mark.parametrize("text", ["gemini --acp", "ws:/nohost", "ftp://box/acp", "claude-agent-acp"])
def test_commands_and_other_urls_are_commands(text: str) -> None:
    assert not is_remote_url(text)


def test_a_settings_entry_with_a_url_is_a_remote_agent_with_its_headers_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ACP_TOKEN", "s3cret")
    text = """{"agent_servers": {"build-box": {
        "url": "wss://build.example.com/acp",
        "headers": {"Authorization": "Bearer ${ACP_TOKEN}", "X-Literal": "$${NOT_A_VARIABLE}"},
        "localTools": true,
    }}}"""
    [spec] = parse_config(text, FILE).agents
    assert spec.url == "wss://build.example.com/acp"
    assert spec.headers == {"Authorization": "Bearer s3cret", "X-Literal": "${NOT_A_VARIABLE}"}
    assert spec.local_tools and spec.remote


def test_a_remote_entry_has_no_local_tools_unless_it_says_so() -> None:
    [spec] = parse_config('{"agent_servers": {"box": {"url": "ws://box/acp"}}}', FILE).agents
    assert not spec.local_tools and spec.headers == {} and spec.cwd is None


def test_a_remote_entry_may_name_its_working_directory_on_its_machine() -> None:
    [spec] = parse_config(
        '{"agent_servers": {"box": {"url": "ws://box/acp", "cwd": "/srv/shop"}}}', FILE
    ).agents
    assert spec.cwd == "/srv/shop"


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            '{"url": "ws://box/acp", "headers": {"Authorization": "Bearer ${NO_SUCH_VAR_X}"}}',
            r"agent_servers\.box\.headers\.Authorization: the environment variable NO_SUCH_VAR_X is not set",
        ),
        ('{"url": "ftp://box/acp"}', r'"url" must be a ws://, wss://, http:// or https:// URL'),
        ('{"url": "ws://box/acp", "command": "agent"}', r'both a "command" and a "url"'),
        ('{"url": "ws://box/acp", "localTools": "yes"}', r'"localTools" must be true or false'),
        ('{"url": "ws://box/acp", "headers": {"A": 1}}', r"headers: must be an object of string values"),
        ('{"url": "ws://box/acp", "cwd": ""}', r'"cwd" must be a non-empty string'),
    ],
)
def test_a_wrong_remote_entry_is_an_error_naming_the_file_and_the_entry(entry: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as raised:
        parse_config(f'{{"agent_servers": {{"box": {entry}}}}}', FILE)
    assert str(raised.value).startswith(str(FILE))


def test_agent_url_on_the_command_line_finds_the_settings_entry_with_that_url() -> None:
    config = parse_config('{"agent_servers": {"box": {"url": "ws://box/acp", "localTools": true}}}', FILE)
    catalog = build_catalog("ws://box/acp", config)
    assert catalog.default.key == "box" and catalog.default.local_tools


def test_expand_leaves_text_without_variables_alone() -> None:
    assert expand("plain $HOME text", "where", {}) == "plain $HOME text"
    with pytest.raises(SettingsError, match="MISSING"):
        expand("${MISSING}", "where", {})


def test_a_remote_agent_without_local_tools_is_offered_no_fs_and_no_terminal() -> None:
    caps = initialize_params(prompt_suggestions=True, jetbrains_air=False, local_tools=False)[
        "clientCapabilities"
    ]
    assert "fs" not in caps and "terminal" not in caps
    assert "promptSuggestions" in caps["session"]
    local = initialize_params(prompt_suggestions=True, jetbrains_air=False)["clientCapabilities"]
    assert local["fs"] == {"readTextFile": True, "writeTextFile": True} and local["terminal"] is True


def test_urls_are_shown_without_credentials_or_query() -> None:
    assert shown_url("wss://user:pw@box:9/acp?token=x") == "wss://box:9/acp"


def test_an_error_never_shows_the_urls_credentials() -> None:
    url = "wss://user:pw@box:9/acp?token=s3cret"
    for error in (refusal(url, ConnectionRefusedError(111, "refused")), http_refusal(url, 401, "an upgrade")):
        assert "wss://box:9/acp" in str(error)
        assert "s3cret" not in str(error) and "pw" not in str(error)
    assert command_agent(url).name == "box:9"
