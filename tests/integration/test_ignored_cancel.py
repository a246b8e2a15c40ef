"""An agent that ignores `session/cancel`: after the grace period the session says so and offers to stop
it; stopping restarts the agent and keeps the transcript."""

from __future__ import annotations

from pathlib import Path

from tests.support.driver import SessionDriver
from tests.support.live import scripted_agent
from tests.support.polling import eventually
from webclient.acp.models import AgentStatus, TextPart
from webclient.domain.items import MessageItem, NoticeItem
from webclient.domain.state import Aspect, TurnState
from webclient.settings import Settings
from webclient.views import render


async def test_an_agent_that_ignores_cancel_is_shown_as_such_and_a_restart_keeps_the_transcript(
    workspace: Path,
) -> None:
    settings = Settings(
        agent=scripted_agent("ignores_cancel"), cwd=workspace, flush_interval=0, cancel_grace=0.5
    )
    driver = SessionDriver(settings)
    await driver.start()
    try:
        await eventually(lambda: driver.state.agent_status is AgentStatus.READY, 20, "agent ready")
        driver.submit_prompt([TextPart(text="do something long")])
        await eventually(lambda: "working on it" in agent_text(driver), 20, "the agent's first words")
        await driver.cancel()
        assert driver.state.turn is TurnState.CANCELLING

        await eventually(lambda: driver.state.turn is TurnState.UNRESPONSIVE, 20, "the grace period")
        assert driver.state.display_status == "unresponsive" and not driver.state.can_prompt
        assert any("did not stop within 0.5 s" in i.notice.text for i in notices(driver))
        html = render.region(driver.state, Aspect.STATUS)
        assert 'data-state="unresponsive"' in html and "the agent did not stop" in html
        assert 'data-testid="restart"' in html and "Stop and restart agent" in html
        assert 'data-testid="cancel"' not in html  # asking again would change nothing

        stuck = driver.supervisor.agent
        await driver.restart()
        await eventually(lambda: driver.state.turn is TurnState.IDLE, 20, "the stopped turn to end")
        await eventually(
            lambda: (
                driver.supervisor.agent is not stuck
                and driver.state.agent_status is AgentStatus.READY
                and driver.state.session_id is not None
            ),
            20,
            "the restarted agent",
        )
        assert driver.state.can_prompt
        assert stuck is not None and stuck.process.returncode is not None  # the stubborn one is gone
        users = [i.text for i in driver.state.items if isinstance(i, MessageItem) and i.role == "user"]
        assert users == ["do something long"] and "working on it" in agent_text(driver)
    finally:
        await driver.shutdown()


def agent_text(driver: SessionDriver) -> str:
    return "".join(i.text for i in driver.state.items if isinstance(i, MessageItem) and i.role == "agent")


def notices(driver: SessionDriver) -> list[NoticeItem]:
    return [i for i in driver.state.items if isinstance(i, NoticeItem)]
