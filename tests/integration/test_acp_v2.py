"""ACP v2 end to end below the browser: the real session registry and a scripted v2 agent subprocess.

The agent (`tests/agents/v2_scripted.py`) does what each prompt's text names; the tests read what the
session state (the page's single source of truth) made of it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.driver import SessionDriver, started
from tests.support.live import scripted_agent
from tests.support.polling import eventually
from webclient.acp.models import AgentStatus, TextPart
from webclient.acp.v2.connection import V2Connection
from webclient.domain.items import MessageItem, NoticeItem, PermissionItem
from webclient.domain.state import TurnState
from webclient.errors import Refused
from webclient.settings import Settings

V2_AGENT = scripted_agent("v2_scripted")
TURN_SECONDS = 20


def settings_for(workspace: Path, agent: str = V2_AGENT, **overrides: Any) -> Settings:
    values: dict[str, Any] = {"agent": agent, "cwd": workspace, "flush_interval": 0, "protocol": "2"}
    return Settings(**{**values, **overrides})


@pytest.fixture
async def v2(workspace: Path) -> AsyncIterator[SessionDriver]:
    async with started(settings_for(workspace)) as driver:
        await session_open(driver)
        yield driver


async def session_open(driver: SessionDriver) -> None:
    await eventually(lambda: driver.state.session_id is not None, TURN_SECONDS, "the session to open")


async def run(driver: SessionDriver, text: str) -> None:
    """Send a prompt and wait until the agent's `idle` ended its turn."""
    driver.submit_prompt([TextPart(text=text)])
    await eventually(lambda: driver.state.turn is TurnState.IDLE, TURN_SECONDS, f"the turn {text!r} to end")


def messages(driver: SessionDriver, role: str | None = None) -> list[MessageItem]:
    return [i for i in driver.state.items if isinstance(i, MessageItem) and role in (None, i.role)]


def notices(driver: SessionDriver) -> list[str]:
    return [n.text for i in driver.state.items if isinstance(i, NoticeItem) for n in i.all]


def sent(driver: SessionDriver, method: str) -> list[dict[str, Any]]:
    """The params of every message of this method we sent."""
    return [m["params"] for d, m in driver.wire_log if d == "out" and m.get("method") == method]


# --- a turn -------------------------------------------------------------------------------------------


async def test_a_v2_turn_ends_on_idle_and_the_agents_user_message_replaces_the_local_prompt(
    v2: SessionDriver,
) -> None:
    assert v2.state.protocol_version == 2
    await run(v2, "hello")
    users, agents = messages(v2, "user"), messages(v2, "agent")
    assert len(users) == 1 and users[0].message_id is not None and not users[0].pending
    assert users[0].text == "hello"  # the agent's copy, in the place of ours: not shown twice
    assert [m.text for m in agents] == ["Hello from v2."]
    assert v2.state.agent_state == "idle"
    await eventually(lambda: [s.text for s in v2.state.suggestions] == ["Tell me more", "Run the tests"])
    prompt = sent(v2, "session/prompt")[0]
    assert prompt["prompt"] == [{"type": "text", "text": "hello"}]


async def test_v2_initialize_offers_v2_params_without_fs_or_terminals(
    workspace: Path, tmp_path: Path
) -> None:
    record = tmp_path / "initialize.jsonl"
    env = (f"V2_RECORD={record}",)
    async with started(settings_for(workspace, agent_env=env)) as driver:
        assert driver.state.agent_status is AgentStatus.READY
    params = [json.loads(line) for line in record.read_text().splitlines()]
    assert len(params) == 1  # one process, one initialize: no fallback
    offered = params[0]
    assert offered["protocolVersion"] == 2
    assert offered["info"]["name"] == "webclient"
    assert "clientCapabilities" not in offered and "clientInfo" not in offered
    caps = offered["capabilities"]
    assert caps["session"]["promptSuggestions"] == {"image": {}, "audio": {}, "embeddedContext": {}}
    assert "fs" not in caps and "terminal" not in caps


async def test_upserts_replace_append_clear_and_patch_by_id(v2: SessionDriver) -> None:
    await run(v2, "upserts")
    by_id = {m.message_id: m for m in messages(v2, "agent")}
    assert by_id["m1"].text == "AB+"  # whole message, then a chunk, then a chunk after another message
    assert by_id["m2"].text == "one two"  # an update without content left it as it was
    assert by_id["m3"].parts == []  # content null cleared it
    assert [m.message_id for m in messages(v2, "agent")] == ["m1", "m2", "m3"]  # placed at first sight
    tool = v2.state.tool_card("t1")
    assert tool is not None
    assert (tool.title, tool.kind, tool.status) == ("Read parser.py", "read", "completed")
    assert tool.raw_input is None  # null cleared it
    assert [c.content.text for c in tool.content if c.content is not None] == ["line 1", "line 2"]  # type: ignore[union-attr]
    assert [(e.content, e.status) for e in v2.state.plan] == [
        ("Fix parser", "completed"),
        ("Write docs", "pending"),
    ]


async def test_display_terminal_decodes_chunks_that_split_a_character_and_a_v2_diff_keeps_its_patch(
    v2: SessionDriver,
) -> None:
    await run(v2, "terminal")
    terminal = v2.state.terminals["term-1"]
    assert terminal.output == "passed ✓\n" and terminal.command == "pytest -q"
    assert terminal.exit is not None and terminal.exit.exit_code == 0
    card = v2.state.tool_card("t-run")
    assert card is not None and card.terminal_ids == {"term-1"}
    edit = v2.state.tool_card("t-edit")
    assert edit is not None
    (diff,) = edit.content
    assert diff.kind == "diff" and diff.path == "/w/app.py" and "+new" in (diff.patch or "")


async def test_unknown_kinds_states_and_stop_reasons_are_tolerated_and_said(v2: SessionDriver) -> None:
    await run(v2, "unknown")
    assert any("unknown type 'future_thing'" in text for text in notices(v2))
    assert [m.text for m in messages(v2, "agent")] == ["still here"]
    card = v2.state.tool_card("t9")
    assert card is not None and (card.kind, card.status) == ("_teleport", "_warping")
    assert any("_vendor_reason" in text for text in notices(v2))
    assert v2.state.agent_status is AgentStatus.READY


async def test_a_batch_array_is_applied_in_order_and_its_request_answered_as_an_array(
    v2: SessionDriver,
) -> None:
    v2.submit_prompt([TextPart(text="batch")])
    await eventually(lambda: pending_permission(v2) is not None, TURN_SECONDS, "the batch's permission")
    item = pending_permission(v2)
    assert item is not None and item.title == "Allow the batch?"
    v2.current.answer_permission(item.id, "yes")
    await eventually(lambda: v2.state.turn is TurnState.IDLE, TURN_SECONDS, "the batch turn to end")
    assert [m.text for m in messages(v2, "agent")] == ["in a batch (answered as an array ['batch-perm'])"]


def pending_permission(driver: SessionDriver) -> PermissionItem | None:
    return next(
        (i for i in driver.state.items if isinstance(i, PermissionItem) and i.state.value == "pending"), None
    )


# --- prompts in any state, permissions, cancel --------------------------------------------------------


async def test_a_prompt_sent_while_running_is_queued_by_the_agent_and_both_end(v2: SessionDriver) -> None:
    v2.submit_prompt([TextPart(text="slow")])
    await eventually(lambda: v2.state.agent_state == "running", TURN_SECONDS, "the slow turn to run")
    assert v2.state.can_prompt  # v2: a prompt may go out while the agent works
    v2.submit_prompt([TextPart(text="and then this")])
    await eventually(lambda: v2.state.turn is TurnState.IDLE, TURN_SECONDS, "both prompts to end")
    users = messages(v2, "user")
    assert [u.text for u in users] == ["slow", "and then this"] and not any(u.pending for u in users)
    assert [m.text for m in messages(v2, "agent")] == ["working slowly, done", "the queued prompt ran"]


async def test_permission_in_v2_shape_shows_its_title_and_description_and_the_state_it_blocks(
    v2: SessionDriver,
) -> None:
    v2.submit_prompt([TextPart(text="permission")])
    await eventually(lambda: pending_permission(v2) is not None, TURN_SECONDS, "the permission request")
    item = pending_permission(v2)
    assert item is not None
    assert item.title == "Change app.py?" and item.request.description == "The agent wants to rewrite main()."
    card = v2.state.tool_card("t-perm")
    assert card is not None and card.title == "Edit app.py"  # the question never renames the tool call
    assert v2.state.agent_state == "requires_action"
    v2.current.answer_permission(item.id, "ok")
    await eventually(lambda: v2.state.turn is TurnState.IDLE, TURN_SECONDS, "the turn to end")
    assert messages(v2, "agent")[-1].text == "permission: ok"


async def test_a_command_permission_describes_the_command_without_opening_a_card(v2: SessionDriver) -> None:
    v2.submit_prompt([TextPart(text="command-permission")])
    await eventually(lambda: pending_permission(v2) is not None, TURN_SECONDS, "the permission request")
    item = pending_permission(v2)
    assert item is not None and item.tool_call.raw_input == {"command": "rm -rf build", "cwd": "/w"}
    assert v2.state.tool_card("command") is None
    v2.current.answer_permission(item.id, "no")
    await eventually(lambda: v2.state.turn is TurnState.IDLE, TURN_SECONDS, "the turn to end")
    assert messages(v2, "agent")[-1].text == "permission: no"


async def test_a_request_the_agent_withdraws_is_answered_request_cancelled(v2: SessionDriver) -> None:
    await run(v2, "cancel-request")
    assert messages(v2, "agent")[-1].text == "withdrawn request answered with code -32800"
    assert pending_permission(v2) is None  # withdrawn: nothing is left for the user to answer


async def test_cancel_waits_for_idle_cancelled(v2: SessionDriver) -> None:
    v2.submit_prompt([TextPart(text="cancel")])
    await eventually(lambda: v2.state.agent_state == "running", TURN_SECONDS, "the turn to run")
    await v2.cancel()
    await eventually(lambda: v2.state.turn is TurnState.IDLE, TURN_SECONDS, "the cancelled turn to end")
    assert messages(v2, "agent")[-1].text == "running until cancelled, stopped"
    assert "the turn was cancelled" in notices(v2)
    long = v2.state.tool_card("t-long")
    assert long is not None and long.status == "cancelled"  # marked by the client at Cancel


async def test_a_refused_prompt_says_why_and_the_session_goes_on(v2: SessionDriver) -> None:
    await run(v2, "refuse")
    assert any("this prompt is refused" in text for text in notices(v2))
    assert not messages(v2, "user")[0].pending  # it no longer says it waits for the agent
    await run(v2, "hello")
    assert messages(v2, "agent")[-1].text == "Hello from v2."


# --- sessions, config options, sign-in ---------------------------------------------------------------


async def test_resume_with_replay_shows_history_and_offers_no_suggestion_from_before_its_answer(
    v2: SessionDriver,
) -> None:
    await eventually(lambda: bool(v2.state.sidebar.stored), TURN_SECONDS, "the stored sessions")
    assert v2.state.sidebar.can_load and v2.state.sidebar.can_resume
    await v2.load_session("v2-stored")
    assert [m.text for m in messages(v2)] == ["an old question", "an old answer"]
    assert v2.state.suggestions == ()
    assert any("during its replay" in text for text in notices(v2))
    assert sent(v2, "session/resume")[-1]["replayFrom"] == {"type": "start"}


async def test_resume_without_replay_reattaches_with_an_empty_list(v2: SessionDriver) -> None:
    await eventually(lambda: bool(v2.state.sidebar.stored), TURN_SECONDS, "the stored sessions")
    await v2.load_session("v2-stored", resume=True)
    assert messages(v2) == [] and v2.state.suggestions == ()
    assert "replayFrom" not in sent(v2, "session/resume")[-1]


async def test_config_options_carry_their_type_and_an_unknown_type_is_hidden(v2: SessionDriver) -> None:
    assert [o.id for o in v2.state.config_options] == ["mode", "brave"]
    assert v2.state.available_modes == () and not v2.state.shows_mode_selector
    await v2.current.set_config_option("mode", "code")
    await v2.current.set_config_option("brave", True)
    sets = sent(v2, "session/set_config_option")
    assert [(s["configId"], s["type"], s["value"]) for s in sets] == [
        ("mode", "id", "code"),
        ("brave", "boolean", True),
    ]
    assert next(o for o in v2.state.config_options if o.id == "mode").current == "code"


async def test_closing_a_session_sends_session_close(v2: SessionDriver) -> None:
    session_id = v2.state.session_id
    await v2.registry.close(v2.current.local_id)
    assert sent(v2, "session/close") == [{"sessionId": session_id}]


async def test_a_plain_visit_never_goes_to_a_session_being_closed(workspace: Path) -> None:
    # A tab on the closing session is sent to "/" before the agent answered session/close (the session's
    # viewers end with it); "/" must not send it back to that session while the answer is on its way.
    settings = settings_for(workspace, agent_env=("V2_CLOSE_DELAY=1.5",))
    async with started(settings) as v2:
        await session_open(v2)
        first, second = v2.current, v2.registry.new_session()
        await eventually(lambda: second.state.session_id is not None, TURN_SECONDS, "the second session")
        assert v2.registry.most_recent() is second

        closing = asyncio.create_task(v2.registry.close(second.local_id))
        await eventually(lambda: bool(sent(v2, "session/close")), TURN_SECONDS, "session/close to go out")
        assert not closing.done()  # the agent takes 1.5 s to answer
        assert v2.registry.most_recent() is first
        await closing
        assert v2.registry.most_recent() is first


async def test_auth_login_signs_in_before_the_session_opens(workspace: Path) -> None:
    async with started(settings_for(workspace, agent_env=("V2_AUTH=1",))) as driver:
        await session_open(driver)  # the lone `agent` method is tried without asking
        assert sent(driver, "auth/login") == [{"methodId": "agent-login"}]
        assert sent(driver, "authenticate") == []


# --- what the page says --------------------------------------------------------------------------------


async def test_every_logged_message_carries_the_version_of_its_connection(v2: SessionDriver) -> None:
    entries = v2.registry.wire_log.view(v2.state.session_id)
    assert entries and {e.version for e in entries} == {2}


async def test_a_stored_session_can_be_deleted_where_the_agent_says_so(v2: SessionDriver) -> None:
    await eventually(lambda: bool(v2.state.sidebar.stored), TURN_SECONDS, "the stored sessions")
    assert v2.state.sidebar.can_delete
    await v2.registry.delete_stored("v2-stored", v2.current.agent_key)
    assert sent(v2, "session/delete") == [{"sessionId": "v2-stored"}]
    await eventually(lambda: v2.state.sidebar.stored == (), TURN_SECONDS, "the deleted session to go")


async def test_a_v1_agent_without_the_delete_capability_offers_no_delete(workspace: Path) -> None:
    async with started(settings_for(workspace, protocol="1")) as driver:
        await session_open(driver)
        assert not driver.state.sidebar.can_delete
        with pytest.raises(Refused, match="does not delete"):
            await driver.registry.delete_stored("v2-stored", driver.current.agent_key)
        assert sent(driver, "session/delete") == []


async def test_logout_is_auth_logout(v2: SessionDriver) -> None:
    agent = v2.supervisor.agent
    assert isinstance(agent, V2Connection)
    await agent.logout()
    assert sent(v2, "auth/logout") == [{}]


async def test_a_list_left_standing_after_the_agent_inserted_a_new_prompt_is_reported(
    v2: SessionDriver,
) -> None:
    await run(v2, "hello")
    await eventually(lambda: bool(v2.state.suggestions), TURN_SECONDS, "the first list")
    await run(v2, "quiet")
    stale = "neither replaced nor withdrew"
    await eventually(
        lambda: any(stale in text for text in notices(v2)), TURN_SECONDS, "the stale-list notice"
    )


async def test_cancel_also_ends_a_queued_prompt_the_agent_drops_without_inserting_it(
    v2: SessionDriver,
) -> None:
    v2.submit_prompt([TextPart(text="cancel")])
    await eventually(lambda: v2.state.agent_state == "running", TURN_SECONDS, "the turn to run")
    v2.submit_prompt([TextPart(text="queued behind it")])
    await eventually(
        lambda: len(sent(v2, "session/prompt")) == 2, TURN_SECONDS, "the second prompt to go out"
    )
    await v2.cancel()
    await eventually(lambda: v2.state.turn is TurnState.IDLE, TURN_SECONDS, "both prompts to end")
    users = messages(v2, "user")
    assert [u.text for u in users] == ["cancel", "queued behind it"] and not any(u.pending for u in users)
