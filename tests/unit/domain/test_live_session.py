"""One session's handling of what the agent asks, without an agent process: the state it leaves."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from webclient.acp.models import (
    AgentStatus,
    Notice,
    NoticeLevel,
    PermissionOption,
    PermissionRequest,
    Suggestion,
    TextPart,
    ToolCallEvent,
)
from webclient.domain.changes import PendingChanges
from webclient.domain.files import FileAccess
from webclient.domain.items import NoticeItem, PermissionItem, ToolCallItem
from webclient.domain.live_session import LiveSession
from webclient.domain.prompt_queue import WaitingPrompt
from webclient.domain.state import Aspect
from webclient.domain.suggestions import SHOWN_LIMIT, SuggestionPolicy
from webclient.errors import Refused


def session(tmp_path: Path) -> LiveSession[PendingChanges]:
    policy = SuggestionPolicy(advertised=True)
    return LiveSession("s1", PendingChanges.factory, policy, FileAccess([tmp_path]))


def request(call: ToolCallEvent) -> PermissionRequest:
    options = (PermissionOption(id="allow", name="Allow", kind="allow_once"),)
    return PermissionRequest(session_id="a1", tool_call=call, options=options)


async def test_a_tool_call_described_only_in_its_permission_request_gets_its_own_card(tmp_path: Path) -> None:
    live = session(tmp_path)
    call = ToolCallEvent(tool_call_id="call-7", is_update=True, title="Write notes.txt", kind="edit")
    asking = asyncio.create_task(live.request_permission(request(call)))
    await asyncio.sleep(0)

    card, question = live.state.items
    assert isinstance(card, ToolCallItem) and isinstance(question, PermissionItem)
    assert (card.tool_call_id, card.title, card.kind) == ("call-7", "Write notes.txt", "edit")
    live.answer_permission(question.id, "allow")
    assert (await asking).option_id == "allow"


async def test_a_permission_request_fills_in_the_card_the_agent_already_opened(tmp_path: Path) -> None:
    live = session(tmp_path)
    live.apply(ToolCallEvent(tool_call_id="call-7", is_update=False, title="Tool call", status="pending"))
    call = ToolCallEvent(tool_call_id="call-7", is_update=True, title="Write notes.txt", kind="edit")
    asking = asyncio.create_task(live.request_permission(request(call)))
    await asyncio.sleep(0)

    cards = [i for i in live.state.items if isinstance(i, ToolCallItem)]
    assert [(c.title, c.kind, c.status) for c in cards] == [("Write notes.txt", "edit", "pending")]
    live.cancel_permissions()
    assert (await asking).option_id is None


def offered(live: LiveSession[PendingChanges], text: str) -> int:
    """Offer one suggestion of `text`; the list's generation."""
    chip = Suggestion(parts=(TextPart(text=text),), wire=({"type": "text", "text": text},))
    live.state.set_suggestions((chip,))
    return live.state.suggestions_generation


def test_a_suggestion_longer_than_the_page_shows_is_never_sent_unread(tmp_path: Path) -> None:
    live = session(tmp_path)
    live.state.set_agent_status(AgentStatus.READY)
    live.state.begin_turn([TextPart(text="first")])  # a v1 turn runs: what is sent waits in the queue

    generation = offered(live, "x" * (SHOWN_LIMIT + 25))
    with pytest.raises(Refused, match="25 characters longer than the page can show, so it was not sent"):
        live.send_suggestion(generation, 0)
    assert len(live.state.waiting.prompts) == 0

    live.send_suggestion(offered(live, "x" * SHOWN_LIMIT), 0)  # shown whole: it goes (waits its turn)
    waiting: tuple[WaitingPrompt, ...] = live.state.waiting.prompts
    assert [len(p.text) for p in waiting] == [SHOWN_LIMIT]


def test_every_change_of_the_session_goes_to_its_sink_and_its_observers(tmp_path: Path) -> None:
    live = session(tmp_path)
    seen: list[set[str]] = []
    live.observe(seen.append)

    live.notice(NoticeLevel.WARNING, "one")
    live.set_agent_status(AgentStatus.READY)

    notice = live.state.items[-1]
    assert seen == [{notice.id}, {Aspect.STATUS}]
    assert live.viewers.take() == {notice.id, Aspect.STATUS}


def test_a_renewed_notice_changes_in_place_until_its_entry_is_gone(tmp_path: Path) -> None:
    live = session(tmp_path)
    first = live.renew_notice(Notice(level=NoticeLevel.WARNING, text="1 ignored"), None)
    live.state.begin_turn([TextPart(text="a prompt between")])

    again = live.renew_notice(Notice(level=NoticeLevel.WARNING, text="2 ignored"), first)
    gone = live.renew_notice(Notice(level=NoticeLevel.WARNING, text="3 ignored"), "no-such-entry")

    notices = [i for i in live.state.items if isinstance(i, NoticeItem)]
    assert again == first and gone != first
    assert [n.notice.text for n in notices] == ["2 ignored", "3 ignored"]
