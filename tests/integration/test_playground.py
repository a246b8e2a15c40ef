"""The suggestions playground renders a pasted update as the conversation page does, and says why not.

Each `/suggest-demo` preset runs in a live session of the demo agent; the update it sent, copied from
the protocol inspector's export, is pasted into the playground, and the suggestion list in its preview
must be the very markup the session's page serves.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import httpx
import pytest
from markupsafe import escape

from tests.support.html import element_by_id, frame_documents, status_is
from tests.support.live import LiveServer, http_get, open_tab, serve_in_thread
from tests.support.polling import eventually
from webclient.demo_agent.commands import SCENARIO_PRESETS

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
    return httpx.post(f"{server.base}{path}", data=form, headers=headers, follow_redirects=False)


def normalised(markup: str | None) -> str:
    """The list's markup without its generation number (each list the page shows counts one up)."""
    assert markup is not None
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
