"""The suggestions playground renders a pasted update as the conversation page does, and says why not.

Each `/suggest-demo` preset runs in a live session of the demo agent; the update it sent, copied from
the protocol inspector's export, is pasted into the playground, and the suggestion list in its preview
must be the very markup the session's page serves.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
from markupsafe import escape

from tests.support.html import element_by_id, frame_documents, status_is
from tests.support.live import LiveServer, http_get, open_tab, serve_in_thread
from tests.support.polling import eventually
from webclient.demo_agent.commands import SCENARIO_PRESETS
from webclient.views import playground
from webclient.web import playground as web_playground

UPDATE = "prompt_suggestions_update"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    workspace = tmp_path_factory.mktemp("playground")
    (workspace / "README.md").write_text("# Shop\n")
    (workspace / "app.py").write_text("print('shop')\n")
    (workspace / "notes.txt").write_text("notes\n")
    with serve_in_thread(cwd=workspace) as live:
        yield live


def post(server: LiveServer, path: str, **form: str | list[str]) -> httpx.Response:
    headers = {"cookie": server.cookie(), "origin": server.base, "x-webclient-key": server.key()}
    # Generous: a post of megabytes on a busy machine takes seconds to decode and render.
    return httpx.post(f"{server.base}{path}", data=form, headers=headers, follow_redirects=False, timeout=120)


def normalised(markup: str | None) -> str:
    """The list's markup without its generation number (each list the page shows counts one up), nor the
    playground's marks on the suggestions its diagnostics are about."""
    assert markup is not None
    markup = re.sub(r' data-diagnosed="\d+"', "", markup)
    markup = re.sub(r'data-generation="\d+"', 'data-generation="G"', markup)
    markup = re.sub(r"chip-\d+-", "chip-G-", markup)
    return re.sub(r'"generation": \d+', '"generation": G', markup)


def suggestion_lines(server: LiveServer) -> list[str]:
    log = http_get(f"{server.base}/s/s1/inspector.jsonl", headers={"cookie": server.cookie()}).text
    return [line for line in log.splitlines() if UPDATE in line and '"direction": "in"' in line]


def preset_sent(server: LiveServer, before: int, preset: str) -> bool:
    lines = suggestion_lines(server)
    if len(lines) <= before:
        return False
    sent = json.loads(lines[-1])["message"]["params"]["update"]["suggestions"]
    return preset == "withdraw" or sent != []


@pytest.mark.parametrize("preset", SCENARIO_PRESETS)
async def test_every_demo_preset_pasted_renders_as_the_live_page(server: LiveServer, preset: str) -> None:
    before = len(suggestion_lines(server))
    tab = await open_tab(server)
    try:
        await tab.wait_for(status_is("ready"), 60)
        await tab.send(action="prompt", text=f"/suggest-demo {preset}", attachments=[])
        # A list on offer is withdrawn first; then, after the turn, comes the preset's own list.
        await eventually(lambda: preset_sent(server, before, preset), 30, f"the {preset} suggestions")
    finally:
        await tab.close()
    pasted = suggestion_lines(server)[-1]
    page = http_get(f"{server.base}/s/s1", headers={"cookie": server.cookie()}).text
    # The session advertised every type; the demo agent takes images and embedded resources.
    shown = post(server, "/playground", text=pasted, types=["image", "embeddedContext"])
    assert shown.status_code == 200, shown.text
    frames = frame_documents(shown.text)
    assert len(frames) == 12  # three styles, two widths, two schemes
    live = normalised(element_by_id(page, "suggestions"))
    for document in frames.values():
        style = re.search(r'data-suggestion-style="(\w+)"', document)
        assert style is not None
        expected = live.replace('data-style="chips"', f'data-style="{style.group(1)}"')
        assert normalised(element_by_id(document, "suggestions")) == expected
        assert normalised(element_by_id(document, "ghost-text")) == normalised(
            element_by_id(page, "ghost-text")
        )


def test_invalid_input_gets_a_clear_message_and_keeps_the_text(server: LiveServer) -> None:
    for text, message in [
        ("not json at all", "that is not JSON"),
        ('{"hello": 1}', "no prompt_suggestions_update"),
        ("", "paste a prompt_suggestions_update"),
        ('{"a": 1}\n{"b": 2}', "the wire log holds no prompt_suggestions_update"),
    ]:
        response = post(server, "/playground", text=text)
        assert response.status_code == 422
        assert 'data-testid="playground-error"' in response.text and message in response.text
        assert 'data-testid="error-page"' not in response.text
        assert str(escape(text)) in response.text  # the text is kept, as the page escapes it


def test_a_malformed_update_and_skipped_suggestions_are_diagnosed(server: LiveServer) -> None:
    update = {"sessionUpdate": UPDATE, "suggestions": {"not": "a list"}}
    response = post(server, "/playground", text=json.dumps(update))
    assert response.status_code == 200
    assert 'data-kind="update"' in response.text and "not a list" in response.text
    listing = [
        {"prompt": [{"type": "text", "text": "   "}]},
        {"prompt": [{"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}]},
        {
            "prompt": [
                {"type": "text", "text": "Open "},
                {"type": "resource_link", "name": "a.py", "uri": "file:///b.py"},
            ]
        },
    ]
    response = post(server, "/playground", text=json.dumps(listing))
    kinds = re.findall(r'data-testid="playground-diagnostic" data-kind="([\w-]+)"', response.text)
    assert kinds == ["skipped", "skipped", "link", "link", "auto-send"]  # misnamed, and outside the workspace
    assert "not allowed on both sides" in response.text
    with_images = post(server, "/playground", text=json.dumps(listing), types=["image"])
    assert re.findall(r'data-kind="([\w-]+)"', with_images.text).count("skipped") == 1


def test_a_wire_log_offers_each_update_to_pick(server: LiveServer) -> None:
    def line(text: str) -> dict[str, object]:
        update = {"sessionUpdate": UPDATE, "suggestions": [{"prompt": [{"type": "text", "text": text}]}]}
        message = {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "a", "update": update},
        }
        return {"direction": "in", "message": message}

    lines = [line("first list"), line("second list")]
    log = "\n".join(json.dumps(line) for line in lines)
    first = post(server, "/playground", text=log)
    assert 'data-testid="playground-pick"' in first.text and "first list" in first.text
    second = post(server, "/playground", text=log, pick="1")
    assert (
        "second list" in second.text
        and "first list" not in frame_documents(second.text)[("chips", "phone", "dark")]
    )


def test_send_to_session_offers_the_list_in_a_new_demo_session(server: LiveServer) -> None:
    listing = [{"prompt": [{"type": "text", "text": "from the playground"}]}]
    response = post(server, "/playground/send", text=json.dumps(listing))
    assert response.status_code == 303
    session_page = response.headers["location"]
    assert session_page.startswith("/s/") and session_page != "/s/s1"
    page = http_get(f"{server.base}{session_page}", headers={"cookie": server.cookie()}).text
    assert "from the playground" in (element_by_id(page, "suggestions") or "")
    assert "came from the playground" in page


def test_the_playground_needs_the_sign_in_and_an_origin_of_ours(server: LiveServer) -> None:
    assert http_get(f"{server.base}/playground").status_code == 401
    foreign = httpx.post(f"{server.base}/playground", data={"text": "[]"},
                         headers={"cookie": server.cookie(), "origin": "http://evil.example"})  # fmt: skip
    assert foreign.status_code == 403


def error_of(response: httpx.Response) -> str:
    found = re.search(
        r'data-testid="playground-error">\s*<p><strong>Nothing to show:</strong> (.*?)</p>', response.text
    )
    assert found, response.text[:2000]
    return found.group(1)


def test_an_error_names_the_line_it_is_on(server: LiveServer) -> None:
    # One pretty-printed update with a comma missing on line 2: its own line, not "line 1 of the log".
    pretty = '\n{"suggestions": [\n  {"prompt": [{"type": "text", "text": "a"}]} {"prompt": []}\n]}'
    response = post(server, "/playground", text=pretty)
    assert response.status_code == 422
    assert "line 3, column" in error_of(response) and "of the log" not in error_of(response)
    good = json.dumps(
        {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {}}}
    )
    log = f"{good}\n\n{good}\n{{broken\n"
    assert error_of(post(server, "/playground", text=log)).startswith("line 4 of the log is not JSON")


def test_lone_surrogates_and_deep_nesting_are_read_as_a_live_session_reads_them(server: LiveServer) -> None:
    broken = '[{"prompt": [{"type": "text", "text": "Run \\ud800 it"}]}]'
    response = post(server, "/playground", text=broken)
    assert response.status_code == 200
    assert "Run \ufffd it" in response.text and str(escape(broken)) in response.text  # the text is kept
    deep = "\n".join("[" * 50_000 + "]" * 50_000 for _ in range(50))
    response = post(server, "/playground", text=deep)
    assert response.status_code == 422 and "nested deeper" in error_of(response)
    nested = json.dumps(
        [{"prompt": [{"type": "text", "text": "ok"}], "_meta": {"a": [[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]}}]
    )
    assert post(server, "/playground", text=nested).status_code == 200


def test_a_thousand_long_links_make_a_bounded_page(server: LiveServer) -> None:
    links = [{"type": "resource_link", "name": f"f{i}.py", "uri": "file:///" + "x" * 3000 + f"/{i}.py"}
             for i in range(1000)]  # fmt: skip
    response = post(
        server, "/playground", text=json.dumps([{"prompt": [{"type": "text", "text": "Open"}, *links]}])
    )
    assert response.status_code == 200
    assert "has 1,001 blocks; the previews show its first 12" in response.text
    # The text is echoed once; the previews and diagnostics add a bounded amount to it.
    assert len(response.content) < 4 * 3_100_000 + 8 * 1024 * 1024


def test_the_previews_mark_the_suggestion_a_diagnostic_is_about(server: LiveServer) -> None:
    listing = [
        {"prompt": [{"type": "text", "text": "Fine"}]},
        {"prompt": [{"type": "text", "text": "Say hi\u200b now"}]},
    ]
    response = post(server, "/playground", text=json.dumps(listing))
    assert 'data-kind="hidden" data-suggestion="2"' in response.text
    documents = frame_documents(response.text)
    assert len(documents) == 12
    for document in documents.values():
        assert 'data-diagnosed="2"' in document
        assert 'data-index="0" data-diagnosed' not in document


def test_reading_and_rendering_run_off_the_event_loop(
    server: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The server runs on a thread of this process: what runs on its event loop sees a running loop.
    seen: list[tuple[str, bool]] = []

    def spy(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            seen.append((name, asyncio._get_running_loop() is not None))
            return real(*args, **kwargs)

        return call

    monkeypatch.setattr(playground, "play", spy("play", playground.play))
    monkeypatch.setattr(playground, "page", spy("page", playground.page))
    monkeypatch.setattr(web_playground, "parse_qs", spy("parse_qs", parse_qs))
    response = post(server, "/playground", text=json.dumps([{"prompt": [{"type": "text", "text": "hi"}]}]))
    assert response.status_code == 200
    assert ("play", False) in seen and ("page", False) in seen and ("parse_qs", False) in seen
    assert all(not on_loop for _, on_loop in seen), seen
