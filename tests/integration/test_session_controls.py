"""Modes and config options end to end: a real session registry in-process talking to the demo agent.

The session/new result offers the modes and options; the header's selectors send `session/set_mode` and
`session/set_config_option` for what the agent offered only, and anything else is refused before it
reaches the agent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from tests.support.driver import SessionDriver, sent, started, turn
from webclient.acp.controls import ConfigOption
from webclient.acp.models import AgentStatus
from webclient.errors import Refused
from webclient.settings import Settings

# The module's tests share one demo agent (the module's event loop holds its connection); each opens a
# session of its own on it, and reads only that session's messages.
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def demo(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[SessionDriver]:
    """The demo agent, started once for the module in an empty workspace."""
    root = tmp_path_factory.mktemp("controls")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("WEBCLIENT_DEMO_STATE_DIR", str(root / "demo-state"))
        env.setenv("WEBCLIENT_DEMO_CHUNK_DELAY_MS", "0")
        settings = Settings(agent="", cwd=root, flush_interval=0, initialize_timeout=10)
        async with started(settings) as driver:
            assert driver.state.agent_status is AgentStatus.READY
            yield driver


@pytest_asyncio.fixture(loop_scope="module")
async def driver(demo: SessionDriver) -> AsyncIterator[SessionDriver]:
    """A new session of the module's demo agent, closed after the test."""
    view = await demo.new_view()
    yield view
    await view.close()


def option(options: tuple[ConfigOption, ...], config_id: str) -> ConfigOption:
    return next(o for o in options if o.id == config_id)


async def test_session_new_result_offers_the_demo_modes_and_options(driver: SessionDriver) -> None:
    state = driver.state
    assert [m.id for m in state.available_modes] == ["ask", "code", "architect"]
    assert state.current_mode_id == "ask"
    model = option(state.config_options, "model")
    assert model.kind == "select" and model.current == "fast"
    assert model.values == {"fast", "thorough"}
    # We advertise boolean config options, so the demo offers its toggle too.
    assert option(state.config_options, "verbose").current is False


async def test_set_mode_sends_session_set_mode_and_switches_the_header(driver: SessionDriver) -> None:
    await driver.current.set_mode("architect")
    assert sent(driver, "session/set_mode") == [{"sessionId": driver.state.session_id, "modeId": "architect"}]
    assert driver.state.current_mode_id == "architect"


async def test_unknown_mode_is_refused_before_it_reaches_the_agent(driver: SessionDriver) -> None:
    with pytest.raises(Refused, match="does not offer a mode 'yolo'"):
        await driver.current.set_mode("yolo")
    assert sent(driver, "session/set_mode") == []
    assert driver.state.current_mode_id == "ask"


async def test_mode_switched_by_the_agent_shows_through_current_mode_update(driver: SessionDriver) -> None:
    await turn(driver, "/mode code")
    assert driver.state.current_mode_id == "code"


async def test_set_select_option_takes_the_full_list_from_the_answer(driver: SessionDriver) -> None:
    await driver.current.set_config_option("model", "thorough")
    assert sent(driver, "session/set_config_option") == [
        {"sessionId": driver.state.session_id, "configId": "model", "value": "thorough"}
    ]
    assert option(driver.state.config_options, "model").current == "thorough"


async def test_set_boolean_option_sends_its_type(driver: SessionDriver) -> None:
    await driver.current.set_config_option("verbose", True)
    (params,) = sent(driver, "session/set_config_option")
    assert params["type"] == "boolean" and params["value"] is True
    assert option(driver.state.config_options, "verbose").current is True


@pytest.mark.parametrize(
    ("config_id", "value"),
    [("model", "gpt-infinity"), ("nonexistent", "fast"), ("model", True), ("verbose", "yes")],
)
async def test_option_or_value_not_offered_is_refused(
    driver: SessionDriver, config_id: str, value: str | bool
) -> None:
    with pytest.raises(Refused, match="nothing was changed"):
        await driver.current.set_config_option(config_id, value)
    assert sent(driver, "session/set_config_option") == []
    assert option(driver.state.config_options, "model").current == "fast"
