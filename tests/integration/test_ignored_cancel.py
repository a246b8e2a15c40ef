"""An agent that ignores `session/cancel`: after the grace period the session says so and offers to stop
it; stopping restarts the agent and keeps the transcript."""

from __future__ import annotations

from pathlib import Path

from tests.integration.support import Harness, eventually
from tests.live import scripted_agent
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
    runtime = Harness(settings)
    await runtime.start()
    try:
        await eventually(lambda: runtime.state.agent_status is AgentStatus.READY, 20, "agent ready")
        assert runtime.submit_prompt([TextPart(text="do something long")]) is None
        await eventually(lambda: "working on it" in agent_text(runtime), 20, "the agent's first words")
        assert await runtime.cancel() is None
        assert runtime.state.turn is TurnState.CANCELLING

        await eventually(lambda: runtime.state.turn is TurnState.UNRESPONSIVE, 20, "the grace period")
        assert runtime.state.display_status == "unresponsive" and not runtime.state.can_prompt
        assert any("did not stop within 0.5 s" in i.notice.text for i in notices(runtime))
        html = render.region(runtime.state, Aspect.STATUS)
        assert 'data-state="unresponsive"' in html and "the agent did not stop" in html
        assert 'data-testid="restart"' in html and "Stop and restart agent" in html
        assert 'data-testid="cancel"' not in html  # asking again would change nothing

        stuck = runtime.supervisor.agent
        await runtime.restart()
        await eventually(lambda: runtime.state.turn is TurnState.IDLE, 20, "the stopped turn to end")
        await eventually(
            lambda: (
                runtime.supervisor.agent is not stuck
                and runtime.state.agent_status is AgentStatus.READY
                and runtime.state.session_id is not None
            ),
            20,
            "the restarted agent",
        )
        assert runtime.state.can_prompt
        assert stuck is not None and stuck.process.returncode is not None  # the stubborn one is gone
        users = [i.text for i in runtime.state.items if isinstance(i, MessageItem) and i.role == "user"]
        assert users == ["do something long"] and "working on it" in agent_text(runtime)
    finally:
        await runtime.shutdown()


def agent_text(runtime: Harness) -> str:
    return "".join(i.text for i in runtime.state.items if isinstance(i, MessageItem) and i.role == "agent")


def notices(runtime: Harness) -> list[NoticeItem]:
    return [i for i in runtime.state.items if isinstance(i, NoticeItem)]
