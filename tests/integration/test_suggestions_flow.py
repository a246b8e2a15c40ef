"""Prompt suggestions end to end: a real SessionDriver in-process talking to real agent subprocesses.

The demo agent is the reference Agent: these tests show it keeping every Agent rule (sends only when
advertised, withdraws before anything else of a turn, nothing in replay) and the client keeping its rules
(offers in order, sends a chosen suggestion unchanged, empty after load). Scripted agents in tests/agents/
speak the legacy `_meta` channel and break each Agent rule a client can observe, and each break must show
its notice. What the agent actually received is read from `driver.wire_log`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.driver import SessionDriver, finish_turn, sent, turn
from tests.support.live import scripted_agent
from tests.support.polling import eventually
from webclient.acp.capabilities import SUGGESTION_CONTENT_TYPES
from webclient.acp.models import AgentStatus, NoticeLevel, TextPart
from webclient.domain.items import MessageItem, NoticeItem
from webclient.domain.turns import SUGGESTION_GRACE_SECONDS
from webclient.errors import Refused
from webclient.settings import Settings

SUGGESTIONS_UPDATE = "prompt_suggestions_update"


@pytest.fixture(autouse=True)
def _demo_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo agent keeps its sessions in a per-test directory and streams without pauses."""
    monkeypatch.setenv("WEBCLIENT_DEMO_STATE_DIR", str(tmp_path / "demo-state"))
    monkeypatch.setenv("WEBCLIENT_DEMO_CHUNK_DELAY_MS", "0")


@pytest.fixture(params=["1", "2"], ids=["v1", "v2"])
def protocol(request: pytest.FixtureRequest) -> str:
    """The ACP version a demo-agent test speaks: the reference Agent keeps every rule in both."""
    return str(request.param)


def advertised(init: dict[str, Any]) -> dict[str, Any]:
    """The client's session capabilities in an `initialize` (v1: clientCapabilities, v2: capabilities)."""
    caps = init.get("clientCapabilities") or init.get("capabilities") or {}
    return dict(caps.get("session") or {})


LOAD = {"1": "session/load", "2": "session/resume"}


@asynccontextmanager
async def running(workspace: Path, agent: str = "", **overrides: Any) -> AsyncIterator[SessionDriver]:
    settings = Settings(agent=agent, cwd=workspace, flush_interval=0, initialize_timeout=10, **overrides)
    driver = SessionDriver(settings)
    await driver.start()
    try:
        await eventually(
            lambda: driver.state.agent_status in (AgentStatus.READY, AgentStatus.EXITED), 20, "agent ready"
        )
        assert driver.state.agent_status is AgentStatus.READY, notices(driver)
        yield driver
    finally:
        await driver.shutdown()


def notices(driver: SessionDriver, containing: str = "") -> list[str]:
    found = [n.text for i in driver.state.items if isinstance(i, NoticeItem) for n in i.all]
    return [text for text in found if containing in text]


def texts(driver: SessionDriver) -> list[str]:
    return [s.text for s in driver.state.suggestions]


def received_updates(driver: SessionDriver, kind: str | None = None) -> list[dict[str, Any]]:
    """Every `session/update` body the agent sent (of one kind), in wire order."""
    found = []
    for direction, message in driver.wire_log:
        if direction == "in" and message.get("method") == "session/update":
            body = message["params"]["update"]
            if kind is None or body.get("sessionUpdate") == kind:
                found.append(body)
    return found


def messages(driver: SessionDriver) -> list[tuple[str, str]]:
    return [(i.role, i.text) for i in driver.state.items if isinstance(i, MessageItem)]


def wire_after(
    driver: SessionDriver, predicate: Callable[[str, dict[str, Any]], bool]
) -> list[tuple[str, Any]]:
    """The wire log from the last message matching `predicate` on."""
    log = list(driver.wire_log)
    starts = [n for n, (d, m) in enumerate(log) if predicate(d, m)]
    assert starts, "no such message in the wire log"
    return log[starts[-1] :]


def is_prompt(direction: str, message: dict[str, Any]) -> bool:
    return direction == "out" and message.get("method") == "session/prompt"


# --- the demo agent: the reference Agent ----------------------------------------------------------------


async def test_advertised_demo_suggestions_arrive_after_a_turn_and_are_offered_in_order(
    workspace: Path,
    protocol: str,
) -> None:
    async with running(workspace, protocol=protocol) as driver:
        [init] = sent(driver, "initialize")
        assert advertised(init)["promptSuggestions"] == SUGGESTION_CONTENT_TYPES

        await turn(driver, "help")
        await eventually(lambda: bool(driver.state.suggestions), 10, "suggestions")

        [update] = received_updates(driver, SUGGESTIONS_UPDATE)
        offered = driver.state.suggestions
        assert [list(s.wire) for s in offered] == [entry["prompt"] for entry in update["suggestions"]]
        assert texts(driver)[:3] == ["List files", "Show me ", "Count to 5"]
        [readme] = offered[1].attachments
        assert readme.name == "README.md" and readme.uri.endswith("/README.md")  # type: ignore[union-attr]
        # the image suggestion comes only because both sides advertise images
        assert {b["type"] for s in offered for b in s.wire} == {"text", "resource_link", "image"}
        # rule 1: receiving suggestions sends nothing; the only prompt is the one the user sent
        assert [p["prompt"] for p in sent(driver, "session/prompt")] == [[{"type": "text", "text": "help"}]]
        assert notices(driver) == []
        assert [role for role, _ in messages(driver)] == ["user", "thought", "agent"]  # rule 8


async def test_not_advertised_the_demo_agent_sends_none_and_nothing_is_offered(
    workspace: Path, protocol: str
) -> None:
    async with running(workspace, prompt_suggestions=False, protocol=protocol) as driver:
        [init] = sent(driver, "initialize")
        assert "promptSuggestions" not in advertised(init)

        await turn(driver, "help")
        await turn(driver, "/suggest []")  # a scenario list needs the capability too
        # The advertised run offers within ~50 ms of the response; give it a generous quiet window.
        grace_over = lambda: driver.current.turns._grace is not None and driver.current.turns._grace.done()  # noqa: E731
        await eventually(grace_over, 10, "grace period")

        assert received_updates(driver, SUGGESTIONS_UPDATE) == []
        assert driver.state.suggestions == ()
        assert "did not advertise" in messages(driver)[-1][1]
        assert notices(driver) == []


async def test_new_prompt_withdraws_before_anything_else_of_the_turn_and_clears_the_list(
    workspace: Path,
    protocol: str,
) -> None:
    async with running(workspace, protocol=protocol) as driver:
        await turn(driver, "help")
        await eventually(lambda: bool(driver.state.suggestions), 10, "suggestions")
        generation = driver.state.suggestions_generation

        driver.submit_prompt([TextPart(text="count to 3")])
        # the client stops offering at once, without waiting for the agent (rule 7)
        assert driver.state.suggestions == ()
        assert driver.state.suggestions_generation > generation
        await finish_turn(driver)

        after = wire_after(driver, is_prompt)
        updates = [m["params"]["update"] for d, m in after if d == "in" and "sessionUpdate" in str(m)]
        if protocol == "2":  # the agent first inserts the prompt into its history: that accepts it
            assert updates.pop(0)["sessionUpdate"] == "user_message"
        assert updates[0] == {"sessionUpdate": SUGGESTIONS_UPDATE, "suggestions": []}
        assert driver.current.ledger.turn_settled() == ()  # the agent kept the withdrawal rule
        # rule 7: the client told the agent nothing about dropping the list
        # (the session/list after the turn only refreshes the sidebar's stored sessions)
        sent = [m.get("method") for d, m in after if d == "out"]
        assert [method for method in sent if method != "session/list"] == ["session/prompt"]
        await eventually(lambda: texts(driver) == ["Count to 6", "What can you do?"], 10, "next prediction")
        assert notices(driver) == []


async def test_selected_suggestion_is_sent_deep_equal_and_a_stale_choice_is_refused(
    workspace: Path, protocol: str
) -> None:
    async with running(workspace, protocol=protocol) as driver:
        await turn(driver, "help")
        await eventually(lambda: bool(driver.state.suggestions), 10, "suggestions")
        [update] = received_updates(driver, SUGGESTIONS_UPDATE)
        stale = driver.state.suggestions_generation - 1

        with pytest.raises(Refused, match="that suggestion was replaced before it could be used"):
            driver.send_suggestion(stale, 0)
        assert len(sent(driver, "session/prompt")) == 1
        driver.send_suggestion(driver.state.suggestions_generation, 1)
        await finish_turn(driver)

        prompts = sent(driver, "session/prompt")
        assert len(prompts) == 2
        assert prompts[-1]["prompt"] == update["suggestions"][1]["prompt"]
        assert [b["type"] for b in prompts[-1]["prompt"]] == ["text", "resource_link"]
        user = [i for i in driver.state.items if isinstance(i, MessageItem) and i.role == "user"]
        assert [p.kind for p in user[-1].parts] == ["text", "resource_link"]
        assert "Sample project" in messages(driver)[-1][1]  # the demo agent showed the README


async def test_load_of_an_earlier_session_replays_the_transcript_with_no_suggestions(
    workspace: Path, protocol: str
) -> None:
    async with running(workspace, protocol=protocol) as driver:
        await turn(driver, "help")
        await eventually(lambda: bool(driver.state.suggestions), 10, "suggestions")
        earlier = driver.state.session_id

        await driver.restart()
        await eventually(
            lambda: driver.state.agent_status is AgentStatus.READY and driver.state.session_id != earlier,
            20,
            "a new session",
        )
        assert driver.state.suggestions == ()  # a new session starts empty, even after a restart
        await turn(driver, "count to 2")
        await eventually(lambda: bool(driver.state.suggestions), 10, "suggestions in the new session")
        before = driver.current

        assert earlier is not None
        await driver.load_session(earlier)

        # The stored session opens beside the live one, as the current session, with nothing on offer.
        assert driver.current is not before and before.state.suggestions != ()
        assert driver.state.session_id == earlier
        assert driver.state.suggestions == ()
        with pytest.raises(Refused, match="no such suggestion"):
            driver.send_suggestion(driver.state.suggestions_generation, 0)
        assert [role for role, _ in messages(driver)] == ["user", "agent"]
        assert messages(driver)[0] == ("user", "help")
        replay = wire_after(driver, lambda d, m: d == "out" and m.get("method") == LOAD[protocol])
        assert not [m for d, m in replay if d == "in" and SUGGESTIONS_UPDATE in str(m)]
        assert notices(driver, "prompt suggestions") == []
        # the loaded session goes on: a prompt gets an answer and a fresh prediction
        await turn(driver, "list files")
        await eventually(lambda: bool(driver.state.suggestions), 10, "suggestions after load")


async def test_load_of_an_unknown_session_keeps_the_conversation(workspace: Path, protocol: str) -> None:
    async with running(workspace, protocol=protocol) as driver:
        await turn(driver, "help")
        current = driver.state.session_id
        before = messages(driver)

        with pytest.raises(Refused, match="could not open session"):  # told to the tab that asked
            await driver.load_session("no-such-session")

        assert driver.state.session_id == current
        assert messages(driver) == before
        await turn(driver, "count to 2")


# --- the legacy channel (claude-agent-acp before the RFD) ----------------------------------------------


@pytest.mark.parametrize("shape", ["bare", "object"])
async def test_legacy_suggestions_after_the_response_are_offered_as_one_text_block(
    workspace: Path, shape: str
) -> None:
    async with running(workspace, scripted_agent("legacy_suggestions"), jetbrains_air=True) as driver:
        [init] = sent(driver, "initialize")
        assert init["clientCapabilities"]["_meta"] == {"jetbrains": {"air": {}}}

        await turn(driver, f"{shape} please")
        await eventually(lambda: bool(driver.state.suggestions), 10, "legacy suggestions")

        assert [list(s.wire) for s in driver.state.suggestions] == [
            [{"type": "text", "text": "legacy suggestion 1"}]
        ]
        await turn(driver, f"{shape} again")
        await eventually(lambda: texts(driver) == ["legacy suggestion 2"], 10, "the next legacy list")
        assert notices(driver) == []


async def test_legacy_key_is_ignored_once_a_real_update_arrived(workspace: Path) -> None:
    async with running(workspace, scripted_agent("legacy_suggestions"), jetbrains_air=True) as driver:
        await turn(driver, "bare")
        await eventually(lambda: texts(driver) == ["legacy suggestion 1"], 10, "legacy suggestions")

        await turn(driver, "real")
        assert texts(driver) == ["real suggestion 2"]  # sent before the response
        legacy_sent = 2
        await eventually(
            lambda: len([u for u in received_updates(driver, "session_info_update")]) == legacy_sent,
            10,
            "the legacy key after the real update",
        )

        assert texts(driver) == ["real suggestion 2"]
        assert notices(driver) == []


async def test_legacy_agent_sends_nothing_without_the_air_marker(workspace: Path) -> None:
    async with running(workspace, scripted_agent("legacy_suggestions")) as driver:
        assert "_meta" not in sent(driver, "initialize")[0]["clientCapabilities"]
        await turn(driver, "bare")
        await turn(driver, "bare")  # the first turn's legacy message would have arrived before this one

        assert received_updates(driver, "session_info_update") == []
        assert driver.state.suggestions == ()


# --- an agent that breaks each observable Agent rule, and the notice it yields --------------------------


async def test_update_although_not_advertised_is_ignored_with_a_notice(workspace: Path) -> None:
    agent = scripted_agent("rule_breaker", "unadvertised")
    async with running(workspace, agent, prompt_suggestions=False) as driver:
        await turn(driver, "go")

        assert len(received_updates(driver, SUGGESTIONS_UPDATE)) == 1
        assert driver.state.suggestions == ()
        [notice] = notices(driver, "prompt suggestions")
        assert "did not advertise the promptSuggestions capability" in notice


async def test_list_not_withdrawn_after_a_new_prompt_gives_a_notice_after_the_grace_period(
    workspace: Path,
) -> None:
    async with running(workspace, scripted_agent("rule_breaker", "stale")) as driver:
        await turn(driver, "first")
        assert texts(driver) == ["never withdrawn"]
        await turn(driver, "second")
        assert driver.state.suggestions == ()  # we stopped offering it anyway
        assert notices(driver, "prompt suggestions") == []  # not before the grace period

        await eventually(
            lambda: bool(notices(driver, "neither replaced nor withdrew")),
            SUGGESTION_GRACE_SECONDS + 10,
            "the withdrawal notice",
        )
        [notice] = notices(driver, "prompt suggestions")
        assert "non-empty suggestion list" in notice
        level = [i.notice.level for i in driver.state.items if isinstance(i, NoticeItem)]
        assert level == [NoticeLevel.WARNING]


async def test_empty_and_whitespace_suggestions_are_skipped_with_notices(workspace: Path) -> None:
    async with running(workspace, scripted_agent("rule_breaker", "blank")) as driver:
        await turn(driver, "go")

        assert texts(driver) == ["good one"]
        found = notices(driver, "prompt suggestions")
        assert [n.split(": ")[1] for n in found] == ["skipped suggestion 1", "skipped suggestion 2"]
        assert all("empty or whitespace-only" in n for n in found)


async def test_content_types_not_allowed_on_both_sides_are_skipped_with_notices(workspace: Path) -> None:
    async with running(workspace, scripted_agent("rule_breaker", "types")) as driver:
        await turn(driver, "go")

        assert texts(driver) == ["good one"]
        found = notices(driver, "prompt suggestions")
        assert len(found) == 3
        for notice, block_type in zip(found, ["'image'", "'audio'", "'resource'"], strict=True):
            assert block_type in notice and "not allowed on both sides" in notice


async def test_suggestions_in_load_replay_are_not_offered_and_give_a_notice(workspace: Path) -> None:
    async with running(workspace, scripted_agent("rule_breaker", "replay")) as driver:
        await driver.load_session("breaker-0")

        assert driver.state.session_id == "breaker-0"
        assert messages(driver) == [("user", "old question"), ("agent", "old answer")]
        assert driver.state.suggestions == ()
        [notice] = notices(driver, "prompt suggestions")
        assert "during its replay" in notice


async def test_update_for_an_unknown_session_is_ignored_with_a_notice(workspace: Path) -> None:
    async with running(workspace, scripted_agent("rule_breaker", "unknown_session")) as driver:
        await turn(driver, "go")

        assert driver.state.suggestions == ()
        [notice] = notices(driver, "unknown session")
        assert "'nobody-9'" in notice
