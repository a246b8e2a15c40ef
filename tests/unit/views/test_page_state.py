"""What the page says of a session: its sidebar state and title, notices collapsed and in plain words,
a write's diff shown once, the welcome's starters, and the page for a refused request."""

from __future__ import annotations

import re

from webclient.acp.models import (
    AgentStatus,
    Command,
    Notice,
    NoticeLevel,
    PermissionRequest,
    TextPart,
    ToolCallContent,
    ToolCallEvent,
)
from webclient.domain.items import FileWriteItem, NoticeItem, PermissionItem, PermissionState
from webclient.domain.state import Aspect, SessionState, TurnState
from webclient.views import render
from webclient.views.notices import has_detail, plain_text
from webclient.views.welcome import DEMO_AGENT_NAME, DEMO_TOUR, starters
from webclient.web.error_pages import CROSS_ORIGIN, NOT_SIGNED_IN


def ready() -> SessionState:
    """A session whose agent is ready and whose `session/new` has answered."""
    state = SessionState(session_id="s-1")
    state.set_agent_status(AgentStatus.READY)
    return state


def warning(text: str, detail: str | None = None) -> Notice:
    return Notice(level=NoticeLevel.WARNING, text=text, detail=detail)


# --- sidebar state and title ----------------------------------------------------------------------------


def test_a_pending_permission_makes_the_session_need_an_answer_and_answering_makes_it_work_again() -> None:
    state = ready()
    state.set_turn(TurnState.WORKING)
    assert state.session_status == "working"
    call = ToolCallEvent(tool_call_id="t1", is_update=True)
    item = PermissionItem(request=PermissionRequest(session_id="s", tool_call=call, options=()))
    state.add_item(item)
    assert state.session_status == "needs-answer"
    item.state = PermissionState.ANSWERED
    assert state.session_status == "working"
    state.set_turn(TurnState.IDLE)
    assert state.session_status == "ready"


def test_cancelling_reads_as_working_and_an_exited_agent_as_exited() -> None:
    state = ready()
    state.set_turn(TurnState.CANCELLING)
    assert state.session_status == "working"
    state.set_agent_status(AgentStatus.EXITED)
    assert state.session_status == "exited"


def test_the_title_is_the_agents_then_the_first_prompts_first_line_and_never_an_id() -> None:
    state = ready()
    state.session_id = "0b5e5b2c-8f9d-4c1e-9a55-3f1e2d7c9a10"
    assert state.display_title == "New session"
    state.add_user_message([TextPart(text="\n  fix the cart total \nplease")])
    state.add_user_message([TextPart(text="and then this")])
    assert state.display_title == "fix the cart total"
    state.title = "Cart fixes"
    assert state.display_title == "Cart fixes"


def test_the_first_prompt_of_an_untitled_session_renames_it_in_the_header() -> None:
    state = ready()
    assert Aspect.DETAILS in state.add_user_message([TextPart(text="list files")])
    assert '<h1 class="title" data-testid="page-title">list files</h1>' in render.page(state, ws_path="/ws")
    assert Aspect.DETAILS not in state.add_user_message([TextPart(text="help")])


def test_a_long_first_prompt_is_cut_with_an_ellipsis() -> None:
    state = ready()
    state.add_user_message([TextPart(text="word " * 40)])
    assert len(state.display_title) <= 60
    assert state.display_title.endswith("…")


# --- notices ---------------------------------------------------------------------------------------------


def test_notices_of_one_kind_in_a_row_become_one_with_a_count() -> None:
    state = ready()
    first = state.add_notice(warning("prompt suggestions: an empty suggestion was skipped"))
    again = state.add_notice(warning("prompt suggestions: type 'video' is not allowed"))
    assert first == again
    [item] = [i for i in state.items if isinstance(i, NoticeItem)]
    assert item.count == 2
    assert [n.text for n in item.all] == [
        "prompt suggestions: an empty suggestion was skipped",
        "prompt suggestions: type 'video' is not allowed",
    ]


def test_a_notice_of_another_kind_or_level_or_after_other_entries_starts_a_new_one() -> None:
    state = ready()
    state.add_notice(warning("prompt suggestions: one"))
    state.add_notice(warning("could not list the agent's sessions: boom"))
    state.add_notice(Notice(level=NoticeLevel.ERROR, text="could not list the agent's sessions: again"))
    state.add_user_message([TextPart(text="hi")])
    state.add_notice(Notice(level=NoticeLevel.ERROR, text="could not list the agent's sessions: again"))
    assert [i.count for i in state.items if isinstance(i, NoticeItem)] == [1, 1, 1, 1]


def test_known_notices_speak_plainly_and_keep_their_technical_text_as_detail() -> None:
    notice = warning("prompt suggestions: content type 'audio' is not allowed by both sides")
    assert (
        plain_text(notice) == "The agent sent prompt suggestions that break the rules; those were left out."
    )
    assert has_detail(notice)
    unknown = warning("the turn was cancelled")
    assert plain_text(unknown) == "the turn was cancelled"
    assert not has_detail(unknown)
    assert has_detail(warning("the turn was cancelled", detail="trace"))


def test_a_collapsed_notice_renders_its_count_and_every_technical_text_behind_details() -> None:
    state = ready()
    state.add_notice(warning("prompt suggestions: <b>one</b>"))
    state.add_notice(warning("prompt suggestions: two"))
    html = render.item(state, state.items[0])
    assert 'data-count="2"' in html and "\u00d72" in html
    assert "<details" in html and "prompt suggestions: &lt;b&gt;one&lt;/b&gt;" in html
    assert "prompt suggestions: two" in html


# --- a write shows its diff once --------------------------------------------------------------------------


def edit_tool(state: SessionState, path: str, new_text: str) -> None:
    diff = ToolCallContent(kind="diff", path=path, old_text="a\n", new_text=new_text)
    state.apply(ToolCallEvent(tool_call_id="edit-1", is_update=False, title="Edit", content=(diff,)))


def test_a_write_the_tool_call_already_showed_only_names_the_file() -> None:
    state = ready()
    edit_tool(state, "/work/shop/src/cart.py", "a\nb\n")
    write = FileWriteItem(path="/work/shop/src/cart.py", old_text="a\n", new_text="a\nb\n")
    state.add_item(write)
    assert write.diff_shown
    html = render.item(state, write)
    assert 'data-diff-shown="true"' in html and "<pre" not in html


def test_a_write_with_other_content_or_another_file_shows_its_own_diff() -> None:
    state = ready()
    edit_tool(state, "/work/shop/src/cart.py", "a\nb\n")
    other_text = FileWriteItem(path="/work/shop/src/cart.py", old_text="a\n", new_text="a\nc\n")
    other_file = FileWriteItem(path="/work/shop/src/pricing.py", old_text="a\n", new_text="a\nb\n")
    for write in (other_text, other_file):
        state.add_item(write)
        assert not write.diff_shown
        assert '<pre class="diff"' in render.item(state, write)


# --- welcome ---------------------------------------------------------------------------------------------


def test_the_demo_agent_gets_the_tour_and_another_agent_its_own_commands() -> None:
    state = ready()
    state.commands = (
        Command(name="review", description="Review the diff", input_hint="what to review"),
        Command(name="compact", description="Compact the context"),
    )
    state.agent_id = "claude-agent-acp"
    assert [(s.label, s.prompt) for s in starters(state)] == [
        ("/review", "/review "),
        ("/compact", "/compact"),
    ]
    state.agent_id = DEMO_AGENT_NAME
    assert starters(state) == DEMO_TOUR


def test_the_welcome_names_the_agent_and_its_starters_put_text_in_data_attributes_only() -> None:
    state = ready()
    state.agent_name = "Hostile <script>alert(1)</script>"
    state.commands = (Command(name='x" onclick="alert(1)', description="<img src=x onerror=alert(1)>"),)
    html = render.page(state, ws_path="/ws")
    assert "<script>alert" not in html and "<img src=x" not in html
    assert 'data-testid="starter"' in html and "&lt;script&gt;" in html


# --- the page for a refused request ---------------------------------------------------------------------


def test_the_refusal_page_says_what_to_do_with_our_stylesheets_and_no_script_but_the_sign_in_key() -> None:
    html = NOT_SIGNED_IN.html()
    assert 'data-status="401"' in html and "What to do" in html and "?token=" in html
    # One script of ours, which gives back the key the origin keeps, should another server on this
    # machine have overwritten the cookie.
    assert re.findall(r"<script[^>]*>", html) == ['<script src="/static/sign_in_key.js" defer>']
    assert "style=" not in html
    assert 'href="/static/app.css"' in html
    assert "<script" not in CROSS_ORIGIN.html()
