"""The whole conversation with the demo agent, in ACP v1 and v2 alike: the same session state either way.

A real session registry with the real demo agent subprocess; each test runs once per protocol version,
in a session of its own on the module's agent for that version.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Literal

import pytest
import pytest_asyncio

from tests.support.driver import SessionDriver, started
from tests.support.polling import eventually
from tests.support.workspace import make_workspace
from webclient.acp.models import AgentStatus, TextPart
from webclient.domain.items import MessageItem, NoticeItem, PermissionItem, ToolCallItem
from webclient.domain.state import TurnState
from webclient.settings import Settings

TURN_SECONDS = 30


# The module's tests share one demo agent per protocol version, in one workspace (the module's event loop
# holds their connections); each test opens a session of its own on it.
pytestmark = pytest.mark.asyncio(loop_scope="module")


@asynccontextmanager
async def demo_agent(root: Path, protocol: Literal["1", "2"]) -> AsyncIterator[SessionDriver]:
    """The demo agent in the sample project under `root`, speaking ACP `protocol`, ready."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("WEBCLIENT_DEMO_STATE_DIR", str(root / "demo-state"))
        env.setenv("WEBCLIENT_DEMO_CHUNK_DELAY_MS", "0")
        settings = Settings(
            agent="", cwd=make_workspace(root / "workspace"), flush_interval=0, protocol=protocol
        )
        async with started(settings) as driver:
            assert driver.state.agent_status is AgentStatus.READY
            await eventually(lambda: driver.state.session_id is not None, TURN_SECONDS, "the session")
            assert driver.state.protocol_version == int(protocol)
            yield driver


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=["1", "2"], ids=["v1", "v2"])
async def shared_demo(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[SessionDriver]:
    async with demo_agent(tmp_path_factory.mktemp(f"demo-v{request.param}"), request.param) as driver:
        yield driver


@pytest_asyncio.fixture(loop_scope="module")
async def demo(shared_demo: SessionDriver) -> AsyncIterator[SessionDriver]:
    """A new session of the module's demo agent (one per protocol version), closed after the test."""
    view = await shared_demo.new_view(TURN_SECONDS)
    yield view
    await view.close()


async def run(driver: SessionDriver, text: str, *, allow: bool = True) -> None:
    """Send a prompt, answer any permission it asks (allow or deny), wait for the end of the turn."""
    driver.submit_prompt([TextPart(text=text)])

    def settled() -> bool:
        for item in driver.state.items:
            if isinstance(item, PermissionItem) and item.state.value == "pending":
                option = next(o for o in item.options if o.rejects != allow)
                driver.current.answer_permission(item.id, option.id)
        return driver.state.turn is TurnState.IDLE

    await eventually(settled, TURN_SECONDS, f"the turn {text!r} to end")


def agent_texts(driver: SessionDriver) -> list[str]:
    return [i.text for i in driver.state.items if isinstance(i, MessageItem) and i.role == "agent"]


def cards(driver: SessionDriver) -> list[ToolCallItem]:
    return [i for i in driver.state.items if isinstance(i, ToolCallItem)]


def notices(driver: SessionDriver) -> list[str]:
    return [n.text for i in driver.state.items if isinstance(i, NoticeItem) for n in i.all]


async def test_a_turn_streams_the_answer_after_the_users_message_and_offers_suggestions(
    demo: SessionDriver,
) -> None:
    await run(demo, "help")
    roles = [i.role for i in demo.state.items if isinstance(i, MessageItem)]
    assert roles == ["user", "thought", "agent"]
    assert not any(i.pending for i in demo.state.items if isinstance(i, MessageItem))
    assert "demo agent" in agent_texts(demo)[0]
    await eventually(lambda: bool(demo.state.suggestions), TURN_SECONDS, "suggestions")
    assert demo.state.title  # the agent named the session
    assert notices(demo) == []


async def test_an_allowed_edit_shows_its_card_diff_and_plan_and_changes_the_file(demo: SessionDriver) -> None:
    await run(demo, "edit README.md")
    edit = next(c for c in cards(demo) if c.kind == "edit")
    assert edit.status == "completed"
    diff = next(c for c in edit.content if c.kind == "diff")
    assert (diff.new_text or diff.patch or "") and diff.path is not None and diff.path.endswith("README.md")
    assert demo.state.plan and all(e.status == "completed" for e in demo.state.plan)
    assert "reviewed by the demo agent" in (demo.workspace / "README.md").read_text()


async def test_a_denied_edit_changes_nothing(demo: SessionDriver) -> None:
    before = (demo.workspace / "README.md").read_text()
    await run(demo, "edit README.md", allow=False)
    assert (demo.workspace / "README.md").read_text() == before
    assert next(c for c in cards(demo) if c.kind == "edit").status == "failed"


async def test_a_command_runs_only_after_approval_and_its_output_shows_in_its_card(
    demo: SessionDriver,
) -> None:
    await run(demo, "run echo hello-from-the-shell")
    card = next(c for c in cards(demo) if c.terminal_ids)
    (terminal_id,) = card.terminal_ids
    await eventually(lambda: "hello-from-the-shell" in demo.state.terminals[terminal_id].output, TURN_SECONDS)
    terminal = demo.state.terminals[terminal_id]
    assert terminal.exit is not None and terminal.exit.exit_code == 0


async def test_cancel_ends_a_long_turn_as_cancelled(demo: SessionDriver) -> None:
    demo.submit_prompt([TextPart(text="slow 200")])
    await eventually(lambda: bool(agent_texts(demo)), TURN_SECONDS, "the slow count to begin")
    await demo.cancel()
    await eventually(lambda: demo.state.turn is TurnState.IDLE, TURN_SECONDS, "the cancelled turn to end")
    assert "the turn was cancelled" in notices(demo)
    await run(demo, "help")  # and the session goes on
    assert "demo agent" in agent_texts(demo)[-1]


@pytest.mark.parametrize("protocol", ["1", "2"], ids=["v1", "v2"])
async def test_a_stored_session_opens_with_its_history(tmp_path: Path, protocol: Literal["1", "2"]) -> None:
    # An agent of its own: closing the registry's only session is what makes it open a new one.
    async with demo_agent(tmp_path, protocol) as demo:
        await reopen_stored(demo)


async def reopen_stored(demo: SessionDriver) -> None:
    await run(demo, "list files")
    earlier = demo.state.session_id
    assert earlier is not None
    await demo.registry.close(demo.current.local_id)  # the registry opens a new session in its place
    await eventually(
        lambda: any(s.session_id == earlier for s in demo.registry.most_recent().state.sidebar.stored),
        TURN_SECONDS,
        "the closed session among the stored ones",
    )
    demo.current = demo.registry.most_recent()
    await eventually(lambda: demo.state.session_id is not None, TURN_SECONDS, "the new session")
    await demo.load_session(earlier)
    assert [i.role for i in demo.state.items if isinstance(i, MessageItem)][:1] == ["user"]
    assert any("README.md" in text for text in agent_texts(demo))
    assert demo.state.suggestions == ()
