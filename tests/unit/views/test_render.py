"""State to HTML: partials carry the testing contract, and hostile agent text stays inert in them."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.support.html import Tag, ids, problems, tags, text, top_level
from webclient.acp.models import (
    AgentStatus,
    AudioPart,
    AuthMethod,
    ImagePart,
    MessageChunk,
    Notice,
    NoticeLevel,
    PlanEntry,
    PlanEvent,
    PromptBlock,
    ResourceLinkPart,
    ResourcePart,
    SessionInfoEvent,
    TextPart,
    ToolCallEvent,
    UsageEvent,
)
from webclient.domain.items import Item, MessageItem
from webclient.domain.sign_in import SignIn
from webclient.domain.state import Aspect, SessionState, TurnState
from webclient.views import render
from webclient.views.full_texts import USER_TEXT_SHOWN, full_text

WS_PATH = "/ws"
PAGE_IDS = frozenset(
    {
        "session-header",
        "kept-copies",
        "sidebar-sessions",
        "sidebar-stored",
        "agent-status",
        "connection",
        "plan",
        "transcript",
        "auth",
        "composer-form",
        "composer",
        "composer-help",
        "composer-actions",
        "background",
        "cancel-form",
        "edit-form",
        "detach-form",
        "find-form",
        "inspector-form",
        "attach-file-form",
        "attach-image-form",
        "file-picker",
        "image-input",
        "sidebar",
        "navigate",
        "composer-attachments",
        "composer-tokens",
        "composer-options",
        "turn-announcer",
        "restart-form",
        # prompts waiting for the turn to end (templates/_prompt_queue.html)
        "prompt-queue",
        "prompt-queue-title",
        # prompt suggestions (templates/_suggestions.html, _ghost_text.html, index.html)
        "suggestions",
        "ghost-text",
        "suggestions-announcer",
        "auto-send",
        "auto-send-countdown",
        "auto-send-paused",
        "auto-send-skipped",
        "suggestion-form",
        "suggestion-style",
        "suggestions-restore",
        # slash commands (templates/_slash_menu.html, index.html)
        "slash-menu",
        "slash-hint",
        # the protocol inspector (templates/_inspector*.html)
        "inspector",
        "inspector-filter",
        "inspector-note",
        "inspector-entries",
        # the page around the conversation (index.html, _header.html, _welcome.html)
        "conversation",
        "header-extra",
        "welcome",
        "welcome-title",
    }
)

HOSTILE = "\n\n".join(
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "[click](javascript:alert(1))",
        "[ref][evil]\n\n[evil]: javascript:alert(1)",
        "<javascript:alert(1)>",
        '<div hx-post="/x" hx-trigger="load" hx-get="/y">x</div>',
        '<textarea id="composer" hx-swap-oob="true">pwned</textarea>',
        '<div id="transcript" hx-swap-oob="innerHTML">gone</div>',
        "<iframe src=https://evil.example></iframe>",
        "<style>*{display:none}</style>",
        "<svg onload=alert(1)>",
        "[d](data:text/html,<script>alert(1)</script>)",
        "![beacon](https://evil.example/track.png)",
        '<form ws-send><input name="action" value="restart"></form>',
    ]
)
HOSTILE_ATTR = '"><script>alert(1)</script><img src=x onerror=alert(1) id=composer hx-get=/x>'


def first(html: str) -> Tag:
    return tags(html)[0]


def message(state: SessionState, role: str, content: str) -> MessageItem:
    if role == "user":
        state.add_user_message([TextPart(text=content)])
    else:
        state.apply(MessageChunk(role=role, content=TextPart(text=content)))  # type: ignore[arg-type]
    item = state.items[-1]
    assert isinstance(item, MessageItem)
    return item


# --- the testing contract of item fragments -------------------------------------------------------------


@pytest.mark.parametrize("role", ["user", "agent", "thought"])
def test_message_fragment_carries_testid_role_and_its_own_id(role: str) -> None:
    state = SessionState()
    item = message(state, role, "hello")
    root = first(render.item(state, item))
    assert root.attrs["data-testid"] == "message"
    assert root.attrs["data-role"] == role
    assert root.attrs["id"] == item.id


def test_thought_is_a_closed_details_element() -> None:
    state = SessionState()
    item = message(state, "thought", "pondering")
    html = render.item(state, item)
    root = first(html)
    assert root.name == "details"
    assert "open" not in root.attrs
    assert "summary" in [t.name for t in tags(html)]
    assert "pondering" in text(html)


@pytest.mark.parametrize("role", ["user", "agent"])
def test_user_and_agent_messages_are_articles(role: str) -> None:
    state = SessionState()
    assert first(render.item(state, message(state, role, "x"))).name == "article"


def test_agent_text_is_rendered_as_markdown() -> None:
    state = SessionState()
    html = render.item(state, message(state, "agent", "**bold**"))
    assert "strong" in [t.name for t in tags(html)]


def test_user_text_is_shown_literally_not_as_markdown() -> None:
    state = SessionState()
    html = render.item(state, message(state, "user", "**not bold** <b>x</b>"))
    assert "strong" not in [t.name for t in tags(html)]
    assert "b" not in [t.name for t in tags(html)]
    assert "**not bold** <b>x</b>" in text(html)


def test_a_huge_user_text_shows_its_start_and_a_download_of_the_whole() -> None:
    state = SessionState()
    whole = "<b>" + "u" * (USER_TEXT_SHOWN + 500)
    html = render.item(state, message(state, "user", whole))
    assert len(html) < USER_TEXT_SHOWN + 2000
    assert "503 more characters are not shown" in text(html)
    [link] = [t for t in tags(html) if t.attrs.get("data-testid") == "user-text-download"]
    assert full_text(state, str(link.attrs["href"]).removeprefix("/agent-text/")) == whole
    short = render.item(state, message(state, "user", "u" * USER_TEXT_SHOWN))
    assert "not shown" not in short


def test_auto_sent_user_message_is_marked_and_badged() -> None:
    state = SessionState()
    state.add_user_message([TextPart(text="go")], auto_sent=True)
    html = render.item(state, state.items[-1])
    assert first(html).attrs["data-auto-sent"] == "true"
    assert any(t.attrs.get("data-testid") == "auto-sent-badge" for t in tags(html))


def test_item_fragment_is_plain_by_default_and_an_outerhtml_swap_with_oob() -> None:
    state = SessionState()
    item = message(state, "agent", "x")
    assert "hx-swap-oob" not in first(render.item(state, item)).attrs
    assert first(render.item(state, item, oob=True)).attrs["hx-swap-oob"] == "outerHTML"


def test_tool_call_fragment_shows_title_kind_and_status() -> None:
    state = SessionState()
    state.apply(ToolCallEvent(tool_call_id="t", is_update=False, title="Read a.py", kind="read"))
    html = render.item(state, state.items[-1])
    root = first(html)
    assert root.attrs["data-testid"] == "tool-call"
    assert root.attrs["data-status"] == "pending"
    assert "Read a.py" in text(html)
    assert "read" in text(html)
    state.apply(ToolCallEvent(tool_call_id="t", is_update=True, status="completed"))
    assert first(render.item(state, state.items[-1])).attrs["data-status"] == "completed"


def test_notice_fragment_shows_level_text_and_detail() -> None:
    state = SessionState()
    state.add_notice(Notice(level=NoticeLevel.ERROR, text="agent exited with code 3", detail="Traceback"))
    html = render.item(state, state.items[-1])
    root = first(html)
    assert root.attrs["data-testid"] == "notice"
    assert root.attrs["data-level"] == "error"
    assert "agent exited with code 3" in text(html)
    assert "Traceback" in text(html)


# --- content parts --------------------------------------------------------------------------------------


def test_a_safe_image_part_becomes_an_inline_data_image() -> None:
    state = SessionState()
    state.apply(MessageChunk(role="agent", content=ImagePart(mime_type="image/png", data="iVBORw0KGgo=")))
    images = [t for t in tags(render.item(state, state.items[-1])) if t.name == "img"]
    assert [i.attrs["src"] for i in images] == ["data:image/png;base64,iVBORw0KGgo="]


@pytest.mark.parametrize("mime", ["image/svg+xml", "text/html", 'image/png" onerror="alert(1)'])
def test_an_image_part_of_an_unsafe_type_is_not_shown_inline(mime: str) -> None:
    state = SessionState()
    state.apply(MessageChunk(role="agent", content=ImagePart(mime_type=mime, data="PHN2Zz4=")))
    html = render.item(state, state.items[-1])
    assert "img" not in [t.name for t in tags(html)]
    assert problems(html, allowed_ids=frozenset({state.items[-1].id})) == []


def test_non_text_parts_render_as_labelled_pills() -> None:
    state = SessionState()
    for part in (
        AudioPart(mime_type="audio/wav", data="UklGRg=="),
        ResourceLinkPart(name="app.py", uri="file:///w/app.py"),
        ResourcePart(uri="file:///w/notes.txt", text="remember"),
    ):
        state.apply(MessageChunk(role="agent", content=part))
    html = render.item(state, state.items[-1])
    kinds = [t.attrs["data-kind"] for t in tags(html) if "data-kind" in t.attrs]
    assert kinds == ["audio", "resource_link", "resource"]
    assert "remember" in text(html)


# --- hostile agent text ---------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["agent", "thought", "user"])
@pytest.mark.parametrize("oob", [False, True])
def test_hostile_message_fragment_has_nothing_that_can_act(role: str, oob: bool) -> None:
    state = SessionState()
    item = message(state, role, HOSTILE)
    html = render.item(state, item, oob=oob)
    found = problems(html, allowed_ids=frozenset({item.id}))
    assert found == (["hx-swap-oob on <" + first(html).name + ">"] if oob else [])
    assert ids(html) == [item.id]


def hostile_state() -> tuple[SessionState, list[Item]]:
    state = SessionState(agent_name=HOSTILE_ATTR)
    state.set_agent_status(AgentStatus.READY)
    state.set_turn(TurnState.WORKING)
    state.set_sign_in(SignIn(methods=(AuthMethod(id=HOSTILE_ATTR, name=HOSTILE_ATTR, description=HOSTILE),)))
    state.add_user_message([TextPart(text=HOSTILE)])
    state.apply(MessageChunk(role="thought", content=TextPart(text=HOSTILE)))
    state.apply(MessageChunk(role="agent", content=TextPart(text=HOSTILE)))
    state.apply(MessageChunk(role="agent", content=ResourceLinkPart(name=HOSTILE_ATTR, uri="javascript:x")))
    state.apply(MessageChunk(role="agent", content=ResourcePart(uri=HOSTILE_ATTR, text=HOSTILE)))
    state.apply(MessageChunk(role="agent", content=ImagePart(mime_type="image/svg+xml", data=HOSTILE_ATTR)))
    state.apply(
        ToolCallEvent(
            tool_call_id="t", is_update=False, title=HOSTILE, kind=HOSTILE_ATTR, status=HOSTILE_ATTR
        )
    )
    state.apply(Notice(level=NoticeLevel.WARNING, text=HOSTILE, detail=HOSTILE))
    state.apply(PlanEvent(entries=(PlanEntry(content=HOSTILE, priority=HOSTILE_ATTR, status=HOSTILE_ATTR),)))
    state.apply(SessionInfoEvent(title=HOSTILE_ATTR))
    state.apply(UsageEvent(used=1, size=2, cost_amount=0.5, cost_currency=HOSTILE_ATTR))
    return state, list(state.items)


def benign_state() -> SessionState:
    state = SessionState(agent_name="demo")
    state.set_agent_status(AgentStatus.READY)
    state.set_turn(TurnState.WORKING)
    state.set_sign_in(SignIn(methods=(AuthMethod(id="login", name="Log in", description="d"),)))
    return state


def test_page_with_hostile_agent_content_has_only_our_own_ids_handlers_and_htmx_attributes() -> None:
    state, items = hostile_state()
    hostile = render.page(state, ws_path=WS_PATH)
    item_ids = frozenset(i.id for i in items)
    allowed = PAGE_IDS | item_ids
    # The benign page has our own scripts, forms and htmx wiring; the hostile one may have nothing more.
    assert Counter(problems(hostile, allowed_ids=allowed)) == Counter(
        problems(render.page(benign_state(), ws_path=WS_PATH), allowed_ids=PAGE_IDS)
    )
    assert sorted(set(ids(hostile))) == sorted(allowed)
    assert Counter(ids(hostile))["composer"] == 1


def test_page_scripts_are_only_our_static_files() -> None:
    state, _ = hostile_state()
    scripts = [t for t in tags(render.page(state, ws_path=WS_PATH)) if t.name == "script"]
    assert scripts and all(str(s.attrs["src"]).startswith("/static/") for s in scripts)


def test_every_item_fragment_of_a_hostile_state_is_inert() -> None:
    state, items = hostile_state()
    for entry in items:
        assert problems(render.item(state, entry), allowed_ids=frozenset({entry.id})) == [], entry


def test_snapshot_and_regions_of_a_hostile_state_add_nothing_that_can_act() -> None:
    state, items = hostile_state()
    allowed = PAGE_IDS | frozenset(i.id for i in items)
    baseline = Counter(p for p in problems(render.snapshot(benign_state()), allowed_ids=PAGE_IDS))
    found = Counter(problems(render.snapshot(state), allowed_ids=allowed))
    # Items inside the snapshot's transcript carry no swap markers of their own: htmx would swap
    # nested out-of-band elements separately and lose them from the transcript.
    assert found - baseline == Counter()


# --- snapshot, regions, append --------------------------------------------------------------------------


def test_snapshot_contains_the_transcript_and_the_status() -> None:
    state = SessionState(session_id="s-1")
    state.set_agent_status(AgentStatus.READY)
    item = message(state, "agent", "already here")
    html = render.snapshot(state)
    found = tags(html)
    transcript = next(t for t in found if t.attrs.get("id") == "transcript")
    assert transcript.attrs["data-testid"] == "transcript"
    assert transcript.attrs["hx-swap-oob"] == "innerHTML"
    assert item.id in ids(html)
    assert "already here" in text(html)
    status = next(t for t in found if t.attrs.get("data-testid") == "agent-status")
    assert status.attrs["data-state"] == "ready"
    for region_id in ("session-header", "auth", "plan", "composer-actions"):
        assert region_id in ids(html)


def test_snapshot_top_level_elements_are_all_out_of_band_swaps() -> None:
    state = SessionState()
    message(state, "agent", "x")
    roots = top_level(render.snapshot(state))
    assert [r.attrs.get("id") for r in roots] == [
        "transcript",
        "session-header",
        "welcome",
        "agent-status",
        "composer-actions",
        "background",
        "plan",
        "auth",
        "suggestions",
        "ghost-text",
        "prompt-queue",
        "sidebar-sessions",
        "sidebar-stored",
        "kept-copies",
        "slash-menu",
    ]
    assert all(r.attrs.get("hx-swap-oob") for r in roots)


def test_append_items_wraps_entries_for_a_beforeend_swap_into_the_transcript() -> None:
    state = SessionState()
    item = message(state, "agent", "new")
    wrapped = render.append_items(render.item(state, item))
    found = tags(wrapped)
    assert found[0].name == "div"
    assert found[0].attrs == {"hx-swap-oob": "beforeend:#transcript"}
    assert found[1].attrs["id"] == item.id
    assert wrapped.endswith("</div>")


def test_status_region_carries_the_badge_and_the_buttons_that_depend_on_it() -> None:
    state = SessionState()
    state.set_agent_status(AgentStatus.READY)
    state.set_turn(TurnState.WORKING)
    html = render.region(state, Aspect.STATUS)
    found = tags(html)
    badge = next(t for t in found if t.attrs.get("id") == "agent-status")
    assert badge.attrs["data-state"] == "working"
    assert badge.attrs["hx-swap-oob"] == "outerHTML"
    testids = [t.attrs.get("data-testid") for t in found]
    assert "cancel" in testids and "send" in testids
    send = next(t for t in found if t.attrs.get("data-testid") == "send")
    assert "disabled" not in send.attrs  # what is sent now waits for the turn to end, and it says so
    assert send.attrs.get("data-waits") == "true"


def test_send_is_disabled_when_nothing_sent_could_go_out_or_wait() -> None:
    state = SessionState()
    state.set_agent_status(AgentStatus.EXITED)
    send = next(t for t in tags(render.region(state, Aspect.STATUS)) if t.attrs.get("data-testid") == "send")
    assert "disabled" in send.attrs and "data-waits" not in send.attrs


def test_send_is_enabled_only_when_the_session_can_prompt() -> None:
    state = SessionState()
    state.set_agent_status(AgentStatus.READY)
    html = render.region(state, Aspect.STATUS)
    send = next(t for t in tags(html) if t.attrs.get("data-testid") == "send")
    assert "disabled" not in send.attrs
    assert "cancel" not in [t.attrs.get("data-testid") for t in tags(html)]


def test_cancel_is_disabled_while_cancelling() -> None:
    state = SessionState()
    state.set_agent_status(AgentStatus.READY)
    state.set_turn(TurnState.CANCELLING)
    cancel = next(
        t for t in tags(render.region(state, Aspect.STATUS)) if t.attrs.get("data-testid") == "cancel"
    )
    assert "disabled" in cancel.attrs


def test_an_exited_agent_offers_a_restart() -> None:
    state = SessionState()
    state.set_agent_status(AgentStatus.EXITED)
    testids = [t.attrs.get("data-testid") for t in tags(render.region(state, Aspect.STATUS))]
    assert "restart" in testids


@pytest.mark.parametrize(
    "key, region_id", [(Aspect.DETAILS, "session-header"), (Aspect.SIGN_IN, "auth"), (Aspect.PLAN, "plan")]
)
def test_each_region_renders_its_element_as_an_outerhtml_swap(key: str, region_id: str) -> None:
    root = first(render.region(SessionState(), key))
    assert root.attrs["id"] == region_id
    assert root.attrs["hx-swap-oob"] == "outerHTML"


def test_an_unknown_region_key_is_an_error() -> None:
    with pytest.raises(KeyError):
        render.region(SessionState(), "msg-1")


def test_plan_region_lists_entries_with_status_and_priority() -> None:
    state = SessionState()
    state.apply(PlanEvent(entries=(PlanEntry(content="Write tests", priority="high", status="in_progress"),)))
    html = render.region(state, Aspect.PLAN)
    assert "hidden" not in first(html).attrs
    entry = next(t for t in tags(html) if t.name == "li")
    assert (entry.attrs["data-status"], entry.attrs["data-priority"]) == ("in_progress", "high")
    assert "Write tests" in text(html)


def test_an_empty_plan_region_is_hidden() -> None:
    assert "hidden" in first(render.region(SessionState(), Aspect.PLAN)).attrs


def test_header_shows_title_and_usage_with_cost() -> None:
    state = SessionState(agent_name="Demo")
    state.apply(SessionInfoEvent(title="My task"))
    state.apply(UsageEvent(used=10, size=100, cost_amount=0.25, cost_currency="EUR"))
    words = " ".join(text(render.region(state, Aspect.DETAILS)).split())
    assert "My task" in words and "Demo" in words
    assert "context 10 / 100 · 0.2500 EUR" in words


def test_auth_region_offers_each_method() -> None:
    state = SessionState()
    state.set_sign_in(SignIn(methods=(AuthMethod(id="a", name="Key"), AuthMethod(id="b", name="Browser"))))
    buttons = [
        t for t in tags(render.region(state, Aspect.SIGN_IN)) if t.attrs.get("data-testid") == "auth-method"
    ]
    assert [b.attrs["data-method-id"] for b in buttons] == ["a", "b"]


# --- the full page --------------------------------------------------------------------------------------


def test_page_has_the_composer_transcript_and_status_with_their_test_ids() -> None:
    state = SessionState()
    message(state, "agent", "hi")
    html = render.page(state, ws_path=WS_PATH)
    testids = {t.attrs.get("data-testid") for t in tags(html)}
    assert {"composer", "send", "transcript", "message", "agent-status", "plan"} <= testids
    app = next(t for t in tags(html) if "ws-connect" in t.attrs)
    assert app.attrs["ws-connect"] == WS_PATH


def test_page_items_are_not_out_of_band_swaps() -> None:
    state = SessionState()
    message(state, "agent", "hi")
    html = render.page(state, ws_path=WS_PATH)
    assert not [t for t in tags(html) if "hx-swap-oob" in t.attrs]


def test_page_title_is_the_session_title_or_the_default() -> None:
    state = SessionState()
    assert "<title>webclient</title>" in render.page(state, ws_path=WS_PATH)
    state.apply(SessionInfoEvent(title="<b>Task</b>"))
    assert "<title>&lt;b&gt;Task&lt;/b&gt;</title>" in render.page(state, ws_path=WS_PATH)


@pytest.mark.parametrize(
    ("used", "size", "shown"),
    [(43, 200_000, "43 / 200k"), (12_345, 1_000_000, "12.3k / 1M"), (999, 1_500, "999 / 1.5k")],
)
def test_header_usage_is_short_with_the_whole_count_and_cost_on_hover(
    used: int, size: int, shown: str
) -> None:
    state = SessionState(agent_name="Demo")
    state.apply(UsageEvent(used=used, size=size, cost_amount=0.0001, cost_currency="USD"))
    html = render.region(state, Aspect.DETAILS)
    [usage] = [t for t in tags(html) if t.attrs.get("data-testid") == "usage"]
    assert f"{used:,} of {size:,} tokens used · 0.0001 USD" in (usage.attrs.get("title") or "")
    assert f"context {shown} · 0.0001 USD" in " ".join(text(html).split())


def test_the_prompts_that_wait_show_in_order_and_say_when_they_go_out() -> None:
    state = SessionState(session_id="a1")
    state.set_agent_status(AgentStatus.READY)
    state.begin_turn([TextPart(text="first")])
    for said in ("second <b>", "third"):
        state.waiting.hold(state, (PromptBlock(part=TextPart(text=said)),), auto_sent=False)
    html = render.region(state, Aspect.QUEUE)
    rows = [t for t in tags(html) if t.attrs.get("data-testid") == "waiting-prompt"]
    assert [r.attrs["data-text"] for r in rows] == ["second <b>", "third"]
    assert "second &lt;b&gt;" in html and "when the agent finishes" in html
    state.set_agent_status(AgentStatus.EXITED)  # the turn ended with the agent: nothing goes out by itself
    assert "the agent stopped before they could go" in render.region(state, Aspect.QUEUE)


def test_no_prompt_waits_the_region_is_there_but_hidden() -> None:
    state = SessionState()
    roots = top_level(render.region(state, Aspect.QUEUE))
    assert [(r.attrs.get("id"), "hidden" in r.attrs) for r in roots] == [("prompt-queue", True)]
