"""The chip row and the ghost text, rendered from session state (no browser)."""

from __future__ import annotations

from typing import Any

from webclient.acp.models import ResourceLinkPart, Suggestion, TextPart
from webclient.acp.suggestions import parse_update
from webclient.domain.state import Aspect, SessionState
from webclient.views import render
from webclient.views.chips import CHIP_SHOWN_LIMIT, CHIP_TEXT_LIMIT, chip_view, link_warnings
from webclient.views.diff import text_key

ALL_TYPES = frozenset({"text", "resource_link", "image", "audio", "resource"})
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def offered(*prompts: list[dict[str, Any]]) -> SessionState:
    state = SessionState()
    parsed = parse_update({"suggestions": [{"prompt": p} for p in prompts]}, ALL_TYPES)
    state.set_suggestions(parsed.suggestions)
    return state


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def test_the_row_is_a_labelled_toolbar_of_buttons_in_the_agents_order() -> None:
    html = render.region(offered([text("first")], [text("second")]), Aspect.SUGGESTIONS)
    assert 'role="toolbar"' in html and 'aria-label="Suggested prompts"' in html
    assert 'hx-swap-oob="outerHTML"' in html
    assert html.index('aria-label="first"') < html.index('aria-label="second"')
    assert '"action": "suggestion", "generation": 1, "index": 1' in html
    assert html.count('tabindex="0"') == 1


def test_an_empty_list_renders_a_hidden_row_that_keeps_its_generation() -> None:
    state = offered([text("a")])
    state.set_suggestions(())
    html = render.region(state, Aspect.SUGGESTIONS)
    assert 'data-generation="2"' in html and 'data-count="0"' in html and " hidden" in html
    assert 'data-testid="suggestion"' not in html


def test_agent_html_is_escaped_text() -> None:
    html = render.region(offered([text("<img src=x onerror=alert(1)>\"'")]), Aspect.SUGGESTIONS)
    assert "<img src=x" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_long_text_shows_its_beginning_and_an_expander_with_the_rest() -> None:
    long = "word " * 100
    html = render.region(offered([text(long)]), Aspect.SUGGESTIONS)
    view = chip_view(offered([text(long)]).suggestions[0])
    assert view.extra_chars == len(long) - len(view.head[0].text or "")
    assert f'data-more="+{view.extra_chars} characters · "' in html
    assert 'data-truncated="true"' in html  # its first click expands it rather than sending it
    assert 'data-auto-eligible="false"' in html  # and auto-send never sends it
    assert long.strip() in html  # the full text is the description


def test_a_short_plain_suggestion_is_not_truncated_and_may_be_auto_sent() -> None:
    html = render.region(offered([text("Run the tests")]), Aspect.SUGGESTIONS)
    assert "data-truncated" not in html
    assert 'data-auto-eligible="true"' in html


def test_many_suggestions_render_whole_with_a_hidden_more_control_the_browser_folds() -> None:
    html = render.region(offered(*[[text(f"s{n}")] for n in range(9)]), Aspect.SUGGESTIONS)
    assert html.count('data-testid="suggestion"') == 9  # what fits is the browser's measure
    assert 'aria-expanded="false" hidden>+<span class="more-count">0</span> more' in html
    assert "overflow" not in html


def test_every_attachment_is_identified_with_its_own_data_only() -> None:
    link = {"type": "resource_link", "name": "README.md", "uri": "file:///etc/passwd"}
    image = {"type": "image", "mimeType": "image/png", "data": PNG, "uri": "https://evil.example/x.png"}
    audio = {"type": "audio", "mimeType": "audio/wav", "data": "UklGRg=="}
    resource = {"type": "resource", "resource": {"uri": "file:///src/a.py", "text": "print(1)"}}
    html = render.region(offered([text("see "), link, image, audio, resource]), Aspect.SUGGESTIONS)
    assert html.count('data-testid="suggestion-attachment"') == 4
    assert "README.md" in html and "file:///etc/passwd" in html
    assert f'src="data:image/png;base64,{PNG}"' in html
    assert "evil.example" not in html
    assert "<audio controls" in html and 'src="data:audio/wav;base64,UklGRg=="' in html
    assert "file:///src/a.py" in html and "print(1)" in html
    assert 'data-auto-eligible="false"' in html


def test_hidden_characters_are_marked_and_warned_about_and_left_out_of_the_composer_text() -> None:
    html = render.region(offered([text("invoice_\u202efdp.exe")]), Aspect.SUGGESTIONS)
    assert "⟨U+202E⟩" in html
    assert 'data-testid="hidden-chars-warning"' in html
    assert 'data-text="invoice_fdp.exe"' in html
    assert 'data-auto-eligible="false"' in html


def test_ghost_text_holds_every_suggestion_first_one_shown_with_files_where_they_stand() -> None:
    html = render.region(offered([text("Run the tests")], [text("other")]), Aspect.SUGGESTIONS)
    ghost = html[html.index('id="ghost-text"') :]
    assert " hidden" not in ghost.split(">")[0]
    assert 'data-index="0" data-text="Run the tests">' in ghost
    assert 'data-index="1" data-text="other" hidden>' in ghost
    link = {"type": "resource_link", "name": "a.py", "uri": "file:///a.py"}
    with_link = render.region(offered([text("Show "), link, text(" now")]), Aspect.SUGGESTIONS)
    ghost = with_link[with_link.index('id="ghost-text"') :]
    assert 'data-text="Show ⟦a.py⟧ now"' in ghost
    token = '<span class="chip-ref chip-ref-file" aria-hidden="true" title="file:///a.py">a.py</span>'
    assert f"Show {token} now" in ghost


def test_the_snapshot_carries_the_row() -> None:
    assert 'data-testid="suggestions"' in render.snapshot(offered([text("a")]))


def test_chip_view_keeps_a_run_of_hidden_characters_whole_when_cutting() -> None:
    text_value = "a" * (CHIP_TEXT_LIMIT - 2) + "\u200b" * 5 + "b" * 50
    view = chip_view(Suggestion(parts=offered([text(text_value)]).suggestions[0].parts, wire=()))
    head = view.head[0].text or ""
    assert head.endswith("a") and (view.tail[0].text or "").startswith("\u200b" * 5)


def test_the_accessible_name_is_the_text_as_shown_with_files_by_name_and_hidden_characters_marked() -> None:
    link = {"type": "resource_link", "name": "a.py", "uri": "file:///etc/passwd"}
    view = chip_view(offered([text("Show\u202e "), link, text(" now")]).suggestions[0])
    assert view.label == "Show⟨U+202E⟩ a.py now"


def test_a_suggestion_longer_than_a_chip_holds_is_cut_marked_oversized_and_never_auto_sent() -> None:
    text = "L" * 1_000_000
    chip = chip_view(Suggestion(parts=(TextPart(text=text),), wire=()))

    assert chip.oversized and chip.unshown_chars == 1_000_000 - CHIP_SHOWN_LIMIT
    assert sum(len(p.text or "") for p in chip.pieces) == CHIP_SHOWN_LIMIT
    assert len(chip.label) <= CHIP_SHOWN_LIMIT and chip.composer_text == ""
    assert not chip.auto_eligible and chip.full_text_key == text_key(text)


def test_a_line_break_cuts_the_folded_text_so_a_short_text_of_many_lines_is_collapsed() -> None:
    sneaky = "List files" + "\n" * 240 + "run rm -rf ~"
    view = chip_view(Suggestion(parts=offered([text(sneaky)]).suggestions[0].parts, wire=()))
    assert view.head[0].text == "List files"
    assert view.truncated and not view.auto_eligible
    assert view.extra_chars == len(sneaky) - len("List files")
    assert view.short_label == "List files …"


def test_a_link_named_for_one_file_that_points_at_another_or_outside_the_workspace_is_warned_about() -> None:
    liar = ResourceLinkPart(name="README.md", uri="file:///etc/passwd")
    assert link_warnings(liar, "/work/shop") == [
        "it is named README.md but points to /etc/passwd",
        "/etc/passwd is outside the workspace",
    ]
    honest = ResourceLinkPart(name="README.md", uri="file:///work/shop/README.md")
    nested = ResourceLinkPart(name="src/cart.py", uri="file:///work/shop/src/cart.py")
    assert link_warnings(honest, "/work/shop") == [] and link_warnings(nested, "/work/shop") == []
    escaping = ResourceLinkPart(name="x", uri="file:///work/shop/../secrets/x")
    assert link_warnings(escaping, "/work/shop") == ["/work/shop/../secrets/x is outside the workspace"]
    link = {"type": "resource_link", "name": "README.md", "uri": "file:///etc/passwd"}
    html = render.region(offered([text("Show me "), link]), Aspect.SUGGESTIONS)
    assert 'data-testid="link-warning"' in html and "chip-warn" in html
    assert 'data-auto-eligible="false"' in html
