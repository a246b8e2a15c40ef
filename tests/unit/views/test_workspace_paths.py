"""A workspace file is named by its path in the workspace; anything else is shown whole."""

from __future__ import annotations

import pytest

from tests.support.html import tags, text
from webclient.acp.models import MessageChunk, PromptBlock, ResourceLinkPart, TextPart, ToolCallEvent
from webclient.domain.prompt import Held
from webclient.domain.state import SessionState
from webclient.views import render
from webclient.views.workspace_paths import shown_path, shown_uri

WORKSPACE = "/home/me/shop"


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("/home/me/shop/src/cart.py", "src/cart.py"),
        ("/home/me/shop", "."),
        ("/home/me/shopping/list.txt", "/home/me/shopping/list.txt"),  # a sibling sharing the prefix
        ("/home/me/shop/../secrets/key", "/home/me/shop/../secrets/key"),
        ("/etc/passwd", "/etc/passwd"),
        ("src/cart.py", "src/cart.py"),  # already relative
    ],
)
def test_a_path_inside_the_workspace_is_shown_relative_to_it_and_any_other_whole(
    path: str, shown: str
) -> None:
    assert shown_path(path, WORKSPACE) == shown
    assert shown_path(path) == path  # no workspace known: as given


@pytest.mark.parametrize(
    ("uri", "shown"),
    [
        ("file:///home/me/shop/README.md", "README.md"),
        ("file:///home/me/shop/src/my%20cart.py", "src/my cart.py"),
        ("file://localhost/home/me/shop/README.md", "README.md"),
        ("file:///etc/passwd", "file:///etc/passwd"),
        ("file://otherhost/home/me/shop/README.md", "file://otherhost/home/me/shop/README.md"),
        ("https://example.com/home/me/shop/README.md", "https://example.com/home/me/shop/README.md"),
    ],
)
def test_a_file_uri_inside_the_workspace_is_shown_as_its_relative_path(uri: str, shown: str) -> None:
    assert shown_uri(uri, WORKSPACE) == shown


def test_tool_call_locations_and_diff_paths_are_relative_with_the_whole_path_on_hover() -> None:
    state = SessionState(workspace=WORKSPACE)
    event = ToolCallEvent.model_validate(
        {
            "tool_call_id": "t1",
            "is_update": False,
            "title": "Edit",
            "kind": "edit",
            "status": "completed",
            "locations": [{"path": "/home/me/shop/src/cart.py", "line": 10}, {"path": "/etc/hosts"}],
        }
    )
    state.apply(event)
    html = render.item(state, state.items[-1])
    codes = [t for t in tags(html) if t.name == "code" and t.attrs.get("title")]
    assert [c.attrs["title"] for c in codes] == ["/home/me/shop/src/cart.py", "/etc/hosts"]
    assert "src/cart.py:10" in text(html) and "/etc/hosts" in text(html)
    assert "/home/me/shop/src" not in text(html)


def test_a_diff_names_a_workspace_file_by_its_relative_path() -> None:
    state = SessionState(workspace=WORKSPACE)
    diff = {"kind": "diff", "path": "/home/me/shop/src/cart.py", "old_text": "a\n", "new_text": "a\nb\n"}
    state.apply(
        ToolCallEvent.model_validate(
            {"tool_call_id": "t1", "is_update": False, "title": "Edit", "kind": "edit", "content": [diff]}
        )
    )
    html = render.item(state, state.items[-1])
    assert "--- src/cart.py" in text(html) and "+++ src/cart.py" in text(html)
    assert "/home/me/shop" not in text(html)


def test_a_sent_workspace_file_is_named_once_and_its_whole_uri_is_on_hover() -> None:
    state = SessionState(workspace=WORKSPACE)
    state.apply(
        MessageChunk(
            role="user", content=ResourceLinkPart(name="README.md", uri="file:///home/me/shop/README.md")
        )
    )
    html = render.item(state, state.items[-1])
    assert text(html).count("README.md") == 1
    assert any(t.attrs.get("title") == "file:///home/me/shop/README.md" for t in tags(html))


def test_a_composer_pill_of_a_lying_link_carries_the_same_warnings_as_its_suggestion() -> None:
    liar = Held(
        "a1",
        "README.md",
        PromptBlock(part=ResourceLinkPart(name="README.md", uri="file:///etc/passwd")),
        True,
    )
    html = render.composer_pill(liar, WORKSPACE)
    warnings = [t for t in tags(html) if t.attrs.get("data-testid") == "link-warning"]
    assert len(warnings) == 2 and all(t.attrs.get("role") == "note" for t in warnings)
    assert "named README.md but points to /etc/passwd" in text(html)
    assert "/etc/passwd is outside the workspace" in text(html)
    assert "file-pill-warn" in html
    honest = Held(
        "a2",
        "cart.py",
        PromptBlock(part=ResourceLinkPart(name="cart.py", uri="file:///home/me/shop/src/cart.py")),
        True,
    )
    html = render.composer_pill(honest, WORKSPACE)
    assert "link-warning" not in html and "file-pill-warn" not in html
    assert "src/cart.py" in text(html) and "file:///" not in text(html)


def test_a_sent_lying_link_is_marked_in_its_sentence_and_warned_about_in_notes_under_the_message() -> None:
    state = SessionState(workspace=WORKSPACE)
    for part in (TextPart(text="Show me "), ResourceLinkPart(name="README.md", uri="file:///etc/passwd")):
        state.apply(MessageChunk(role="user", content=part))
    html = render.item(state, state.items[-1])
    notes = [t for t in tags(html) if t.attrs.get("data-testid") == "link-warning"]
    assert [t.name for t in notes] == ["p", "p"] and all(t.attrs.get("role") == "note" for t in notes)
    assert "README.md: it is named README.md but points to /etc/passwd." in text(html)
    assert "README.md: /etc/passwd is outside the workspace." in text(html)
    assert "pill-warn-mark" in html
