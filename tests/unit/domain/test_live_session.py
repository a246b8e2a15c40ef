"""One session's handling of what the agent asks, without an agent process: the state it leaves."""

from __future__ import annotations

import asyncio
from pathlib import Path

from webclient.acp.models import PermissionOption, PermissionRequest, ToolCallEvent
from webclient.domain.changes import PendingChanges
from webclient.domain.files import FileAccess
from webclient.domain.items import PermissionItem, ToolCallItem
from webclient.domain.live_session import LiveSession
from webclient.domain.suggestions import SuggestionPolicy


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
