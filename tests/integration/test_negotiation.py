"""Which ACP version each agent ends up speaking, with `--protocol auto`, `1` and `2`.

Every scripted v1 agent records the `initialize` params it receives (`WIRE_RECORD`), so these tests see
what each process was offered: under `auto`, a v1 agent gets v2 first, answers 1, and a fresh process
gets the full v1 `initialize` (with our capabilities, which it would otherwise never learn).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import pytest

from tests.support.driver import SessionDriver, started
from tests.support.live import scripted_agent
from tests.support.polling import eventually
from webclient.acp.models import AgentStatus, TextPart
from webclient.acp.version_memory import VersionMemory
from webclient.domain.items import MessageItem, NoticeItem
from webclient.domain.state import TurnState
from webclient.settings import Settings

# Every scripted v1 agent that answers `initialize` and opens a session without a sign-in.
V1_AGENTS = (
    "asks_client",
    "env_report {tmp}/report.json",
    "rule_breaker stale",
    "commands_agent",
    "crash_mid_stream",
    "echo_agent",
    "flood",
    "garbage_stdout",
    "huge_tool_updates",
    "ignores_cancel",
    "late_updates",
    "legacy_suggestions",
    "malformed_updates",
    "stdout_logger",
    "stream",
    "uses_terminals",
    "writes_protected",
    "real_agent_quirks",
    "refuses_v2",
    "sdk_agent",  # built with the ACP Python SDK's own agent side, as SDK users build theirs
)


def settings(
    workspace: Path, agent: str, record: Path, protocol: Literal["auto", "1", "2"], **extra: Any
) -> Settings:
    env = (f"WIRE_RECORD={record}", f"V2_RECORD={record}")
    return Settings(agent=agent, cwd=workspace, flush_interval=0, protocol=protocol, agent_env=env, **extra)


def offers(record: Path) -> list[dict[str, Any]]:
    """The `initialize` params each process of the agent received, in order."""
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text().splitlines()]


def notes(driver: SessionDriver) -> list[str]:
    return [e.message["note"] for e in driver.registry.wire_log.view(None) if e.is_note]


@pytest.mark.parametrize("name", V1_AGENTS)
async def test_auto_falls_back_to_v1_for_every_v1_agent_and_it_learns_our_capabilities(
    workspace: Path, tmp_path: Path, name: str
) -> None:
    record = tmp_path / "initialize.jsonl"
    agent = scripted_agent(*name.format(tmp=tmp_path).split())
    async with started(settings(workspace, agent, record, "auto")) as driver:
        assert driver.state.agent_status is AgentStatus.READY
        assert driver.state.protocol_version == 1
        first, second = offers(record)
        assert first["protocolVersion"] == 2 and "capabilities" in first
        assert second["protocolVersion"] == 1
        assert "promptSuggestions" in second["clientCapabilities"]["session"]
        (note,) = notes(driver)
        assert "starts it again with a v1 initialize" in note
        entries = driver.registry.wire_log.view(None)
        fallback = next(i for i, e in enumerate(entries) if e.is_note)
        assert {e.version for e in entries[:fallback]} == {2}  # the v2 offer and its answer
        # Everything in v1 comes after the note (a line the first process wrote last may still follow it).
        assert any(e.version == 1 for e in entries[fallback + 1 :])


async def test_auto_speaks_v2_with_a_v2_agent_in_one_start(workspace: Path, tmp_path: Path) -> None:
    record = tmp_path / "initialize.jsonl"
    async with started(settings(workspace, scripted_agent("v2_scripted"), record, "auto")) as driver:
        assert driver.state.agent_status is AgentStatus.READY and driver.state.protocol_version == 2
        assert [o["protocolVersion"] for o in offers(record)] == [2]
        assert notes(driver) == []


async def test_protocol_1_offers_only_v1(workspace: Path, tmp_path: Path) -> None:
    record = tmp_path / "initialize.jsonl"
    async with started(settings(workspace, scripted_agent("v2_scripted"), record, "1")) as driver:
        assert driver.state.protocol_version == 1
        assert [o["protocolVersion"] for o in offers(record)] == [1]


async def test_protocol_2_with_a_v1_agent_stops_with_a_clear_error(workspace: Path, tmp_path: Path) -> None:
    record = tmp_path / "initialize.jsonl"
    async with started(settings(workspace, scripted_agent("echo_agent"), record, "2")) as driver:
        assert driver.state.agent_status is AgentStatus.EXITED
        said = [n.text for i in driver.state.items if isinstance(i, NoticeItem) for n in i.all]
        assert any("speaks only ACP v1" in text and "--protocol 2" in text for text in said)
        assert [o["protocolVersion"] for o in offers(record)] == [2]


async def test_an_agent_that_refuses_v2_with_an_error_is_not_retried_under_protocol_2(
    workspace: Path, tmp_path: Path
) -> None:
    record = tmp_path / "initialize.jsonl"
    async with started(settings(workspace, scripted_agent("refuses_v2"), record, "2")) as driver:
        assert driver.state.agent_status is AgentStatus.EXITED
        said = [n.text for i in driver.state.items if isinstance(i, NoticeItem) for n in i.all]
        assert any("unsupported ACP protocol version 2" in text for text in said)


async def test_after_one_fallback_a_restart_goes_straight_to_v1(workspace: Path, tmp_path: Path) -> None:
    record = tmp_path / "initialize.jsonl"
    async with started(settings(workspace, scripted_agent("echo_agent"), record, "auto")) as driver:
        await driver.restart()
        await eventually(lambda: len(offers(record)) == 3, 20, "the restarted agent's initialize")
        await eventually(lambda: driver.state.agent_status is AgentStatus.READY, 20, "the restart")
        assert [o["protocolVersion"] for o in offers(record)] == [2, 1, 1]


async def test_the_fallback_costs_a_slow_agent_a_second_start_and_the_log_shows_it(
    workspace: Path, tmp_path: Path
) -> None:
    record = tmp_path / "initialize.jsonl"
    slow = scripted_agent("slow_start", "0.5")
    async with started(settings(workspace, slow, record, "auto")) as driver:
        (note,) = notes(driver)
        first = float(note.split("version 1 ")[1].split(" s after")[0])
        entries = driver.registry.wire_log.view(None)
        offered, answered_v1 = entries[0], next(e for e in entries if e.version == 1 and e.is_response)
        both = answered_v1.at - offered.at
        assert first >= 0.5 and both >= 1.0  # each start sleeps 0.5 s before it reads
        print(f"\nfallback, agent starting in 0.5 s: v2 answered {first:.2f} s, v1 ready {both:.2f} s")


async def test_an_agent_built_with_the_sdk_answers_prompts_after_the_fallback(
    workspace: Path, tmp_path: Path
) -> None:
    record = tmp_path / "initialize.jsonl"
    async with started(settings(workspace, scripted_agent("sdk_agent"), record, "auto")) as driver:
        await eventually(lambda: driver.state.session_id is not None, 20, "the session")
        driver.submit_prompt([TextPart(text="hello")])
        await eventually(lambda: driver.state.turn is TurnState.IDLE, 20, "the turn to end")
        said = [i.text for i in driver.state.items if isinstance(i, MessageItem) and i.role == "agent"]
        assert said == ["You said: hello"] and driver.state.protocol_version == 1


# --- agents that are not what they answer, and what is remembered between starts -----------------------


def notices(driver: SessionDriver) -> list[str]:
    return [n.text for i in driver.state.items if isinstance(i, NoticeItem) for n in i.all]


async def test_a_v1_agent_that_echoes_version_2_without_info_falls_back_to_v1_and_its_turns_end(
    workspace: Path, tmp_path: Path
) -> None:
    record = tmp_path / "initialize.jsonl"
    echo = scripted_agent("sdk_agent", "--echo-version")
    async with started(settings(workspace, echo, record, "auto")) as driver:
        assert [o["protocolVersion"] for o in offers(record)] == [2, 1]
        assert driver.state.protocol_version == 1
        (note,) = notes(driver)
        assert "answered ACP version 2 without the `info` that ACP v2 requires" in note
        await eventually(lambda: driver.state.session_id is not None, 20, "the session")
        driver.submit_prompt([TextPart(text="hello")])
        await eventually(lambda: driver.state.turn is TurnState.IDLE, 20, "the turn to end")
        said = [i.text for i in driver.state.items if isinstance(i, MessageItem) and i.role == "agent"]
        assert said == ["You said: hello"]


async def test_protocol_2_with_an_agent_that_echoes_the_version_names_protocol_1(
    workspace: Path, tmp_path: Path
) -> None:
    record = tmp_path / "initialize.jsonl"
    echo = scripted_agent("sdk_agent", "--echo-version")
    async with started(settings(workspace, echo, record, "2")) as driver:
        assert driver.state.agent_status is AgentStatus.EXITED
        assert any("--protocol 1" in text and "echoes the version" in text for text in notices(driver))
        assert len(offers(record)) == 1


async def test_v1_shaped_prompt_answers_to_a_v2_session_end_the_turn_and_name_protocol_1(
    workspace: Path, tmp_path: Path
) -> None:
    record = tmp_path / "initialize.jsonl"
    echo = scripted_agent("sdk_agent", "--echo-version", "--with-info")
    async with started(settings(workspace, echo, record, "auto")) as driver:
        assert driver.state.protocol_version == 2  # it passes for v2 at initialize
        await eventually(lambda: driver.state.session_id is not None, 20, "the session")
        driver.submit_prompt([TextPart(text="hello")])
        await eventually(lambda: driver.state.turn is TurnState.IDLE, 20, "the turn to end, not hang")
        assert any("as ACP v1 does" in t and "--protocol 1" in t for t in notices(driver))


async def test_the_v1_answer_is_remembered_across_server_starts_so_only_the_first_start_pays(
    workspace: Path, tmp_path: Path
) -> None:
    record = tmp_path / "initialize.jsonl"
    state = tmp_path / "state"
    agent = scripted_agent("echo_agent")
    async with started(settings(workspace, agent, record, "auto", state_dir=state)) as driver:
        assert len(notes(driver)) == 1
    remembered = json.loads((state / "protocol-versions.json").read_text())
    assert remembered[VersionMemory.entry_key(agent)]["version"] == 1
    assert agent not in json.dumps(remembered)  # the command line itself is never written
    async with started(settings(workspace, agent, record, "auto", state_dir=state)) as again:
        assert again.state.agent_status is AgentStatus.READY and again.state.protocol_version == 1
        assert notes(again) == []
    assert [o["protocolVersion"] for o in offers(record)] == [2, 1, 1]  # the second server: v1 at once


async def test_an_agent_that_names_another_version_of_itself_is_offered_v2_again_next_time(
    workspace: Path, tmp_path: Path
) -> None:
    record = tmp_path / "initialize.jsonl"
    state = tmp_path / "state"
    agent = scripted_agent("echo_agent")
    state.mkdir()
    # What an older version of this agent answered; this one starts with v1 as remembered, names another
    # version of itself, and the entry goes: the next start offers v2 again (and learns it anew).
    (state / "protocol-versions.json").write_text(
        json.dumps({VersionMemory.entry_key(agent): {"version": 1, "agent": "echo 0.0.1"}})
    )
    async with started(settings(workspace, agent, record, "auto", state_dir=state)) as driver:
        assert driver.state.protocol_version == 1 and notes(driver) == []
    assert VersionMemory.entry_key(agent) not in json.loads((state / "protocol-versions.json").read_text())
    async with started(settings(workspace, agent, record, "auto", state_dir=state)):
        pass
    assert [o["protocolVersion"] for o in offers(record)] == [1, 2, 1]


async def test_a_v2_agent_is_remembered_as_v2_and_protocol_1_never_writes(
    workspace: Path, tmp_path: Path
) -> None:
    record = tmp_path / "initialize.jsonl"
    state = tmp_path / "state"
    v2 = scripted_agent("v2_scripted")
    async with started(settings(workspace, v2, record, "auto", state_dir=state)) as driver:
        assert driver.state.protocol_version == 2
    assert (
        json.loads((state / "protocol-versions.json").read_text())[VersionMemory.entry_key(v2)]["version"]
        == 2
    )
    other = tmp_path / "other"
    async with started(settings(workspace, scripted_agent("echo_agent"), record, "1", state_dir=other)):
        pass
    assert not other.exists()


async def test_an_unreadable_memory_costs_only_the_second_start(workspace: Path, tmp_path: Path) -> None:
    record = tmp_path / "initialize.jsonl"
    state = tmp_path / "state"
    state.mkdir()
    (state / "protocol-versions.json").write_text("{not json")
    async with started(
        settings(workspace, scripted_agent("echo_agent"), record, "auto", state_dir=state)
    ) as d:
        assert d.state.agent_status is AgentStatus.READY and d.state.protocol_version == 1
    assert [o["protocolVersion"] for o in offers(record)] == [2, 1]


async def test_a_structured_unsupported_version_error_falls_back_or_names_the_choices(
    workspace: Path, tmp_path: Path
) -> None:
    record = tmp_path / "initialize.jsonl"
    agent = scripted_agent("refuses_v2", "--structured")
    async with started(settings(workspace, agent, record, "auto")) as driver:
        assert driver.state.protocol_version == 1 and driver.state.agent_status is AgentStatus.READY
        (note,) = notes(driver)
        assert "refused ACP v2" in note
    strict = tmp_path / "strict.jsonl"
    async with started(settings(workspace, agent, strict, "2")) as driver:
        assert driver.state.agent_status is AgentStatus.EXITED
        assert any("speaks only ACP v1" in t and "use auto or 1" in t for t in notices(driver))
