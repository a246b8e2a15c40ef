"""The protocol inspector in the app with the demo agent: the live panel and the JSONL download."""

from __future__ import annotations

import json
from typing import Any

from tests.support.html import turn_finished
from tests.support.inprocess import InProcessApp, StartApp, wait_until_ready


def download(app: InProcessApp, local_id: str, method: str = "") -> list[dict[str, Any]]:
    response = app.get(f"/s/{local_id}/inspector.jsonl", params={"method": method} if method else None)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    assert response.headers["content-disposition"].startswith("attachment;")
    return [json.loads(line) for line in response.text.splitlines()]


def first(
    records: list[dict[str, Any]], method: str, direction: str, response: bool = False
) -> dict[str, Any]:
    return next(
        r
        for r in records
        if r["method"] == method and r["direction"] == direction and r["response"] is response
    )


def test_the_download_has_the_whole_exchange_of_a_prompt_with_round_trip_times(start_app: StartApp) -> None:
    app = start_app()
    tab = app.open_tab()
    wait_until_ready(tab)
    tab.send(action="prompt", text="help")
    tab.wait_for(turn_finished("help"), timeout=30)

    records = download(app, "s1")
    assert [r["seq"] for r in records] == sorted(r["seq"] for r in records)
    first(records, "initialize", "out")
    assert first(records, "initialize", "in", response=True)["rtt_ms"] >= 0
    first(records, "session/new", "out")
    sent = first(records, "session/prompt", "out")
    assert sent["message"]["params"]["prompt"] == [{"type": "text", "text": "help"}]
    update = first(records, "session/update", "in")
    assert update["id"] is None and update["rtt_ms"] is None
    answer = first(records, "session/prompt", "in", response=True)
    assert answer["id"] == sent["id"]
    assert answer["rtt_ms"] > 0 and answer["t_ms"] > sent["t_ms"]
    assert answer["message"]["result"]["stopReason"] == "end_turn"

    only = download(app, "s1", method="prompt")
    assert {r["method"] for r in only} <= {"session/prompt", "session/update"}
    assert any(r["method"] == "session/prompt" for r in only)

    # A tab gets entries only once it opens its panel, and then the same entries as the download.
    assert 'data-testid="inspector-entry"' not in tab.html
    tab.send(action="inspector", open=True)
    tab.wait_for(lambda html: 'data-method="session/prompt (response)"' in html)


def test_a_second_session_does_not_show_the_first_sessions_prompt(start_app: StartApp) -> None:
    app = start_app()
    tab = app.open_tab()
    wait_until_ready(tab)
    tab.send(action="prompt", text="help")
    tab.wait_for(turn_finished("help"), timeout=30)

    tab.send(action="new_session")
    html = tab.wait_for(lambda html: 'data-href="/s/' in html)
    local_id = html.rsplit('data-href="/s/', 1)[1].split('"', 1)[0]
    assert local_id != "s1"
    # The new session is open at the agent once its own tab shows the config options session/new offered.
    app.open_tab(local_id).wait_for(lambda html: 'data-option-id="model"' in html)

    second = download(app, local_id)
    assert not any(r["method"] == "session/prompt" for r in second)
    assert any(r["method"] == "initialize" for r in second)  # connection scope: shown in every session
    [new_answer] = [r for r in second if r["response"] and r["method"] == "session/new"]
    [new_request] = [r for r in second if not r["response"] and r["method"] == "session/new"]
    assert new_answer["id"] == new_request["id"]
    session_id = new_answer["message"]["result"]["sessionId"]
    first_ids = {
        r["message"]["result"]["sessionId"]
        for r in download(app, "s1")
        if r["response"] and r["method"] == "session/new"
    }
    assert session_id not in first_ids


def test_the_download_needs_the_cookie_and_a_live_session(start_app: StartApp) -> None:
    app = start_app("echo_agent")
    assert app.client.get("/s/s1/inspector.jsonl").status_code in (401, 403)
    assert app.get("/s/s99/inspector.jsonl").status_code == 404
