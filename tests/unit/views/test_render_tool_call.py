"""The tool-call card: one per toolCallId, with locations, content, a coloured diff and raw JSON."""

from __future__ import annotations

from html import unescape

from tests.support.html import problems, tags, text, top_level
from webclient.acp.models import (
    ImagePart,
    TextPart,
    ToolCallContent,
    ToolCallEvent,
    ToolCallLocation,
)
from webclient.domain.items import ToolCallItem
from webclient.domain.state import SessionState
from webclient.views import render

HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(1)><b hx-get="/x" id=composer>bold</b>'
HOSTILE_ATTR = '"><script>alert(1)</script><img src=x onerror=alert(1) id=composer hx-get=/x>'


def card(*events: ToolCallEvent) -> tuple[ToolCallItem, str]:
    state = SessionState()
    for event in events:
        state.apply(event)
    (item,) = state.items
    assert isinstance(item, ToolCallItem)
    return item, render.item(state, item)


def classes_of(html: str, name: str) -> list[str]:
    return [t.attrs.get("class") or "" for t in tags(html) if t.name == name]


def edit_event(**overrides: object) -> ToolCallEvent:
    fields: dict[str, object] = {
        "tool_call_id": "edit-1",
        "is_update": False,
        "title": "Edit app.py",
        "kind": "edit",
        "status": "pending",
        "locations": (ToolCallLocation(path="/w/app.py", line=3),),
        "content": (
            ToolCallContent(
                kind="diff", path="/w/app.py", old_text="a = 1\nb = 2\n", new_text="a = 1\nb = 3\n# ok\n"
            ),
        ),
        "raw_input": {"path": "/w/app.py"},
    }
    fields.update(overrides)
    return ToolCallEvent.model_validate(fields)


def test_the_card_carries_the_testing_contract_and_its_own_id() -> None:
    item, html = card(edit_event())

    (root,) = top_level(html)
    assert root.attrs["id"] == item.id
    assert root.attrs["data-testid"] == "tool-call"
    assert root.attrs["data-status"] == "pending"
    assert root.attrs["data-kind"] == "edit"
    assert "hx-swap-oob" not in root.attrs
    assert "Edit app.py" in text(html)


def test_an_update_re_renders_the_same_card_out_of_band_with_the_new_status() -> None:
    state = SessionState()
    state.apply(edit_event())
    state.apply(
        ToolCallEvent(tool_call_id="edit-1", is_update=True, status="completed", raw_output={"ok": 1})
    )
    (item,) = state.items

    (root,) = top_level(render.item(state, item, oob=True))

    assert root.attrs["hx-swap-oob"] == "outerHTML"
    assert root.attrs["data-status"] == "completed"
    assert root.attrs["id"] == item.id


def test_a_diff_is_a_coloured_unified_diff_with_deleted_and_added_lines() -> None:
    _, html = card(edit_event())

    assert "diff" in classes_of(html, "pre")
    spans = [(t.attrs.get("class"), t) for t in tags(html) if t.name == "span"]
    kinds = [c for c, _ in spans if c and c.startswith("diff-")]
    assert kinds == ["diff-file", "diff-file", "diff-hunk", "diff-ctx", "diff-del", "diff-add", "diff-add"]
    body = text(html)
    assert "-b = 2" in body
    assert "+b = 3" in body
    assert "+# ok" in body


def test_locations_show_path_and_line_as_text() -> None:
    _, html = card(
        edit_event(locations=(ToolCallLocation(path="/w/app.py", line=3), ToolCallLocation(path="/w/b.py")))
    )

    assert "/w/app.py:3" in text(html)
    assert "/w/b.py" in text(html)
    assert "/w/b.py:" not in text(html)


def test_text_content_is_markdown_and_a_terminal_not_yet_started_is_named() -> None:
    _, html = card(
        edit_event(
            kind="execute",
            content=(
                ToolCallContent(kind="content", content=TextPart(text="**3 passed**")),
                ToolCallContent(kind="terminal", terminal_id="term-7"),
            ),
        )
    )

    assert "strong" in [t.name for t in tags(html)]
    assert "Terminal term-7: no output yet" in " ".join(text(html).split())


def test_raw_input_and_output_are_collapsed_pretty_json() -> None:
    _, html = card(edit_event(raw_input={"command": "pytest -q"}, raw_output={"exitCode": 0}))

    details = [t for t in tags(html) if t.name == "details"]
    assert [d.attrs["data-raw"] for d in details] == ["input", "output"]
    assert all("open" not in d.attrs for d in details)
    assert '"command": "pytest -q"' in text(html)
    assert '"exitCode": 0' in text(html)


def test_a_bare_tool_call_renders_without_optional_sections() -> None:
    _, html = card(ToolCallEvent(tool_call_id="t", is_update=False, title="Think"))

    names = [t.name for t in tags(html)]
    assert "details" not in names and "pre" not in names and "ul" not in names
    assert top_level(html)[0].attrs["data-kind"] == "other"


def test_hostile_text_in_every_field_stays_inert() -> None:
    item, html = card(
        edit_event(
            title=HOSTILE,
            kind=HOSTILE_ATTR,
            status=HOSTILE_ATTR,
            locations=(ToolCallLocation(path=HOSTILE_ATTR, line=1),),
            content=(
                ToolCallContent(kind="content", content=TextPart(text=HOSTILE)),
                ToolCallContent(kind="diff", path=HOSTILE_ATTR, old_text=HOSTILE, new_text=HOSTILE + "\nx"),
                ToolCallContent(kind="terminal", terminal_id=HOSTILE_ATTR),
                ToolCallContent(
                    kind="content", content=ImagePart(mime_type="image/svg+xml", data=HOSTILE_ATTR)
                ),
            ),
            raw_input={"command": HOSTILE, HOSTILE_ATTR: [HOSTILE]},
            raw_output=HOSTILE,
        )
    )

    # The card's ids are ours: its own, and its content's (which a live frame appends entries to).
    assert problems(html, allowed_ids=frozenset({item.id, f"{item.id}-content"})) == []
    assert len(top_level(html)) == 1
    assert "<script>alert(1)</script>" in text(html), "shown as text, not dropped"


def test_raw_input_shows_as_readable_json_with_markup_escaped() -> None:
    state = SessionState()
    state.apply(
        ToolCallEvent(tool_call_id="t-json", is_update=False, title="run", raw_input={"cmd": "<b>échec</b>"})
    )
    html = render.item(state, state.items[-1])
    assert "<b>" not in html and "\\u003c" not in html  # escaped for HTML, not for JavaScript
    assert '"cmd": "<b>échec</b>"' in unescape(html)


def test_plain_command_output_is_a_preformatted_block_escaped_and_without_escape_codes() -> None:
    output = "\x1b[32mok\x1b[0m  " + HOSTILE + "\nline two\n"
    _, html = card(
        ToolCallEvent(
            tool_call_id="run-1",
            is_update=False,
            title="make",
            kind="execute",
            content=(ToolCallContent(kind="content", content=TextPart(text=output)),),
        )
    )
    [pre] = [t for t in tags(html) if t.attrs.get("data-testid") == "tool-output"]
    assert pre.name == "pre"
    assert not [t for t in tags(html) if t.name in {"script", "img", "b"}]
    assert "\x1b" not in html and "[32m" not in html
    assert "&lt;script&gt;" in html and "line two" in html
