"""Transcript entries: `as_it_is`, the copy a render on a worker thread reads while the loop goes on."""

from __future__ import annotations

from webclient.acp.models import Notice, NoticeLevel, TextPart, ToolCallContent, ToolCallEvent
from webclient.domain.items import MessageItem, NoticeItem, ToolCallItem, as_it_is


def entry(text: str) -> ToolCallContent:
    return ToolCallContent(kind="content", content=TextPart(text=text))


def test_a_card_copy_keeps_its_content_as_it_was_while_the_card_gains_entries() -> None:
    card = ToolCallItem(tool_call_id="t-1", title="Read", status="in_progress")
    card.merge(ToolCallEvent(tool_call_id="t-1", is_update=True, appended=(entry("one"),)))
    copy = as_it_is(card)
    more = ToolCallEvent(tool_call_id="t-1", is_update=True, appended=(entry("two"),), status="completed")
    card.merge(more)
    assert isinstance(copy, ToolCallItem)
    assert (copy.id, copy.title, copy.status, len(copy.content)) == (card.id, "Read", "in_progress", 1)
    assert len(card.content) == 2


def test_a_message_copy_keeps_its_parts_as_they_were_while_the_answer_grows() -> None:
    message = MessageItem(role="agent")
    message.add(TextPart(text="one"))
    copy = as_it_is(message)
    message.add(TextPart(text=" two"))
    assert isinstance(copy, MessageItem)
    assert (copy.id, copy.text) == (message.id, "one")
    assert message.text == "one two"


ODD = Notice(level=NoticeLevel.WARNING, text="odd line")


def test_a_notice_copy_keeps_its_repeats_as_they_were() -> None:
    notice = NoticeItem(notice=ODD)
    notice.repeats.append(ODD)
    copy = as_it_is(notice)
    notice.repeats.append(ODD)
    assert isinstance(copy, NoticeItem)
    assert (copy.id, len(copy.repeats), len(notice.repeats)) == (notice.id, 1, 2)
