"""How an agent is reached: its process gets the sign-in values but never the server's token, a remote
agent is a connection, and `initialize` offers what the settings say."""

from __future__ import annotations

from pathlib import Path

import pytest

from webclient.acp.process import AgentProcess
from webclient.acp.remote import RemoteAgent
from webclient.agent_config import AgentSpec
from webclient.domain.agent_start import initialize_offer, new_endpoint
from webclient.settings import Settings


def test_a_local_agent_is_a_process_with_the_sign_in_values_and_without_the_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(cwd=tmp_path, agent_env=("FROM_SETTINGS=1",))
    monkeypatch.setenv("CARRIES_THE_TOKEN", f"token={settings.token}")  # say, a URL with it
    spec = AgentSpec(key="a", name="a", argv=("agent", "--flag"))

    endpoint = new_endpoint(settings, spec, {"API_KEY": "given"})

    assert isinstance(endpoint, AgentProcess)
    assert endpoint.argv == ["agent", "--flag"] and endpoint.cwd == tmp_path
    assert endpoint.env["API_KEY"] == "given" and endpoint.env["FROM_SETTINGS"] == "1"
    assert "CARRIES_THE_TOKEN" not in endpoint.env


def test_a_remote_agent_is_a_connection_to_its_url(tmp_path: Path) -> None:
    spec = AgentSpec(key="r", name="r", argv=(), url="wss://agent.example/acp", headers={"X-Team": "t"})

    endpoint = new_endpoint(Settings(cwd=tmp_path), spec, {})

    assert isinstance(endpoint, RemoteAgent)
    assert (endpoint.url, endpoint.headers) == ("wss://agent.example/acp", {"X-Team": "t"})


def test_initialize_offers_suggestions_as_the_settings_say(tmp_path: Path) -> None:
    spec = AgentSpec(key="a", name="a", argv=("agent",))

    on = initialize_offer(Settings(cwd=tmp_path, prompt_suggestions=True), spec)
    off = initialize_offer(Settings(cwd=tmp_path, prompt_suggestions=False), spec)

    assert on.key == "agent" and on.v1_params != off.v1_params and on.v2_params != off.v2_params
