"""Modes and config options end to end: a real session registry in-process talking to the demo agent.

The session/new result offers the modes and options; the header's selectors send `session/set_mode` and
`session/set_config_option` for what the agent offered only, and anything else is refused before it
reaches the agent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_suggestions_flow import running, sent, turn
from webclient.acp.controls import ConfigOption
from webclient.errors import Refused


@pytest.fixture(autouse=True)
def _demo_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBCLIENT_DEMO_STATE_DIR", str(tmp_path / "demo-state"))
    monkeypatch.setenv("WEBCLIENT_DEMO_CHUNK_DELAY_MS", "0")


def option(options: tuple[ConfigOption, ...], config_id: str) -> ConfigOption:
    return next(o for o in options if o.id == config_id)


async def test_session_new_result_offers_the_demo_modes_and_options(tmp_path: Path) -> None:
    async with running(tmp_path) as runtime:
        state = runtime.state
        assert [m.id for m in state.available_modes] == ["ask", "code", "architect"]
        assert state.current_mode_id == "ask"
        model = option(state.config_options, "model")
        assert model.kind == "select" and model.current == "fast"
        assert model.values == {"fast", "thorough"}
        # We advertise boolean config options, so the demo offers its toggle too.
        assert option(state.config_options, "verbose").current is False


async def test_set_mode_sends_session_set_mode_and_switches_the_header(tmp_path: Path) -> None:
    async with running(tmp_path) as runtime:
        await runtime.current.set_mode("architect")
        assert sent(runtime, "session/set_mode") == [
            {"sessionId": runtime.state.session_id, "modeId": "architect"}
        ]
        assert runtime.state.current_mode_id == "architect"


async def test_unknown_mode_is_refused_before_it_reaches_the_agent(tmp_path: Path) -> None:
    async with running(tmp_path) as runtime:
        with pytest.raises(Refused, match="does not offer a mode 'yolo'"):
            await runtime.current.set_mode("yolo")
        assert sent(runtime, "session/set_mode") == []
        assert runtime.state.current_mode_id == "ask"


async def test_mode_switched_by_the_agent_shows_through_current_mode_update(tmp_path: Path) -> None:
    async with running(tmp_path) as runtime:
        await turn(runtime, "/mode code")
        assert runtime.state.current_mode_id == "code"


async def test_set_select_option_takes_the_full_list_from_the_answer(tmp_path: Path) -> None:
    async with running(tmp_path) as runtime:
        await runtime.current.set_config_option("model", "thorough")
        assert sent(runtime, "session/set_config_option") == [
            {"sessionId": runtime.state.session_id, "configId": "model", "value": "thorough"}
        ]
        assert option(runtime.state.config_options, "model").current == "thorough"


async def test_set_boolean_option_sends_its_type(tmp_path: Path) -> None:
    async with running(tmp_path) as runtime:
        await runtime.current.set_config_option("verbose", True)
        (params,) = sent(runtime, "session/set_config_option")
        assert params["type"] == "boolean" and params["value"] is True
        assert option(runtime.state.config_options, "verbose").current is True


@pytest.mark.parametrize(
    ("config_id", "value"),
    [("model", "gpt-infinity"), ("nonexistent", "fast"), ("model", True), ("verbose", "yes")],
)
async def test_option_or_value_not_offered_is_refused(
    tmp_path: Path, config_id: str, value: str | bool
) -> None:
    async with running(tmp_path) as runtime:
        with pytest.raises(Refused, match="nothing was changed"):
            await runtime.current.set_config_option(config_id, value)
        assert sent(runtime, "session/set_config_option") == []
        assert option(runtime.state.config_options, "model").current == "fast"
