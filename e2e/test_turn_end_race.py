"""The end of a turn reaches the page, however closely suggestion updates crowd around it.

The sequence once seen to leave a finished turn looking stuck (status "working...", Cancel shown, the
withdrawn chip "Soon gone" still offered) in about one run in four: prompt, click the first chip, prompt,
click the second chip, then `replace` (`[]`, a chunk, `["First A", "First B"]`, 0.3 s later
`["Second C"]`, the answer) and, right after its answer, `withdraw` (`[]`, a chunk, `["Soon gone"]`,
0.3 s later `[]`, the answer). The scripted v1 agent is tests/agents/suggestion_race.py. Each run must
end with the page idle and no chip offered, and with no script error or failed swap on the way;
`WEBCLIENT_RACE_RUNS` sets how many runs (default 10). Every other run has the protocol inspector open
throughout, so its entries go out in the same frames, and it must end on the last list and the answer.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser import open_signed_in
from tests.support.console import watch_problems
from tests.support.live import LiveServer, scripted_agent, serve_in_thread
from tests.support.pages import agent_messages, chips
from tests.support.polling import wait_until

RUNS = int(os.environ.get("WEBCLIENT_RACE_RUNS", "10"))
# Generous for a loaded two-core machine: a state change that never comes fails the run all the same.
DEADLINE_MS = 30_000


@pytest.fixture(scope="module")
def race_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    cwd = tmp_path_factory.mktemp("race")
    with serve_in_thread(scripted_agent("suggestion_race"), cwd=Path(cwd)) as live:
        yield live


def send(page: Page, text: str) -> None:
    composer = page.get_by_test_id("composer")
    composer.fill(text)
    composer.press("Enter")


def idle_with(page: Page, *offered: str) -> None:
    """The turn is over in the page, with no later event to bring it there: the status says "ready" (not
    "working…"), Cancel is gone, Send works, and exactly `offered` is offered (no chip if none)."""
    status = page.get_by_test_id("agent-status")
    expect(status).to_have_attribute("data-state", "ready", timeout=DEADLINE_MS)
    expect(status).to_have_text("ready", timeout=DEADLINE_MS)
    expect(page.locator("body")).to_have_attribute("data-turn", "idle", timeout=DEADLINE_MS)
    expect(page.get_by_test_id("cancel")).to_have_count(0, timeout=DEADLINE_MS)
    expect(page.get_by_test_id("send")).to_be_enabled(timeout=DEADLINE_MS)
    expect(chips(page)).to_have_text(list(offered), timeout=DEADLINE_MS)
    if not offered:
        expect(page.get_by_test_id("suggestions")).to_be_hidden(timeout=DEADLINE_MS)


WIRE = '[data-testid="inspector-entry"]:not([data-direction="note"])'  # not webclient's own notes
# What the protocol inspector shows of `withdraw`: the prompt, then each update by kind, then the answer.
WITHDRAW_ON_THE_WIRE = [
    "session/prompt",
    "prompt_suggestions_update",
    "agent_message_chunk",
    "prompt_suggestions_update",
    "prompt_suggestions_update",
    "session/prompt (response)",
]


def wire_since(page: Page, seq: int) -> list[str]:
    """The protocol inspector's entries after entry `seq`, in order: each update's kind, else its method."""
    shown: list[str] = page.eval_on_selector_all(
        WIRE,
        "(entries, seq) => entries.filter(e => Number(e.dataset.seq) > seq)"
        ".map(e => e.dataset.kind || e.dataset.method)",
        seq,
    )
    return shown


def answered(page: Page, text: str) -> None:
    expect(agent_messages(page).last).to_contain_text(text, timeout=DEADLINE_MS)


@pytest.mark.parametrize("run", range(RUNS))
def test_replacing_then_withdrawing_right_after_a_turn_leaves_the_page_idle_with_no_list(
    page: Page, race_server: LiveServer, run: int
) -> None:
    problems = watch_problems(page)  # a swap htmx could not make, or a script that threw mid-frame
    open_signed_in(page, race_server)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready", timeout=60_000)
    inspecting = run % 2 == 1
    if inspecting:
        page.get_by_test_id("inspector-toggle").click()
        expect(page.locator(WIRE).first).to_be_attached(timeout=DEADLINE_MS)
        opened_at = int(page.locator(WIRE).last.get_attribute("data-seq") or 0)
    send(page, "hello")
    answered(page, "You said: hello")
    idle_with(page, "Pick one", "Pick two")
    chips(page).nth(0).click()
    answered(page, "You said: Pick one")
    idle_with(page, "Pick one", "Pick two")
    send(page, "again")
    answered(page, "You said: again")
    idle_with(page, "Pick one", "Pick two")
    chips(page).nth(1).click()
    answered(page, "You said: Pick two")
    idle_with(page, "Pick one", "Pick two")
    send(page, "replace")
    answered(page, "ok replace")
    idle_with(page, "Second C")
    send(page, "withdraw")  # as soon as the page shows the answer: the 0.1 s after it, or less
    answered(page, "ok withdraw")
    idle_with(page)
    if inspecting:  # and the inspector shows every message of this run, the last turn's in wire order
        wait_until(
            lambda: wire_since(page, opened_at)[-6:] == WITHDRAW_ON_THE_WIRE,
            DEADLINE_MS / 1000,
            "the inspector to show the withdrawal and the answer",
            lambda: repr(wire_since(page, opened_at)),
        )
        assert len(wire_since(page, opened_at)) == 32  # five messages for each of four turns, six for two
    assert problems == []
