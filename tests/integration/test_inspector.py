"""The protocol inspector against a real server and the demo agent: the live panel and the JSONL download."""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.integration.support import eventually, status_is, turn_finished
from tests.live import LiveServer, open_tab


def download(server: LiveServer, cookie: str, local_id: str, method: str = "") -> list[dict[str, Any]]:
    response = httpx.get(
        f"{server.base}/s/{local_id}/inspector.jsonl",
        params={"method": method} if method else None,
        headers={"cookie": cookie},
    )
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


async def test_the_download_has_the_whole_exchange_of_a_prompt_with_round_trip_times(
    demo_server: LiveServer,
) -> None:
    cookie = demo_server.cookie()
    tab = await open_tab(demo_server, cookie)
    await tab.wait_for(status_is("ready"))
    await tab.send(action="prompt", text="help")
    await tab.wait_for(turn_finished("help"), timeout=30)

    records = download(demo_server, cookie, "s1")
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

    only = download(demo_server, cookie, "s1", method="prompt")
    assert {r["method"] for r in only} <= {"session/prompt", "session/update"}
    assert any(r["method"] == "session/prompt" for r in only)

    # A tab gets entries only once it opens its panel, and then the same entries as the download.
    assert 'data-testid="inspector-entry"' not in tab.html
    await tab.send(action="inspector", open=True)
    await tab.wait_for(lambda html: 'data-method="session/prompt (response)"' in html)
    await tab.close()


async def test_a_second_session_does_not_show_the_first_sessions_prompt(demo_server: LiveServer) -> None:
    cookie = demo_server.cookie()
    tab = await open_tab(demo_server, cookie)
    await tab.wait_for(status_is("ready"))
    await tab.send(action="prompt", text="help")
    await tab.wait_for(turn_finished("help"), timeout=30)

    await tab.send(action="new_session")
    html = await tab.wait_for(lambda html: 'data-href="/s/' in html)
    local_id = html.rsplit('data-href="/s/', 1)[1].split('"', 1)[0]
    assert local_id != "s1"

    def opened() -> bool:
        return any(
            r["response"] and r["method"] == "session/new" for r in download(demo_server, cookie, local_id)
        )

    await eventually(opened, timeout=15, what="the second session's session/new answer")
    second = download(demo_server, cookie, local_id)
    assert not any(r["method"] == "session/prompt" for r in second)
    assert any(r["method"] == "initialize" for r in second)  # connection scope: shown in every session
    [new_answer] = [r for r in second if r["response"] and r["method"] == "session/new"]
    [new_request] = [r for r in second if not r["response"] and r["method"] == "session/new"]
    assert new_answer["id"] == new_request["id"]
    session_id = new_answer["message"]["result"]["sessionId"]
    first_ids = {
        r["message"]["result"]["sessionId"]
        for r in download(demo_server, cookie, "s1")
        if r["response"] and r["method"] == "session/new"
    }
    assert session_id not in first_ids
    await tab.close()


async def test_the_download_needs_the_cookie_and_a_live_session(demo_server: LiveServer) -> None:
    assert httpx.get(f"{demo_server.base}/s/s1/inspector.jsonl").status_code in (401, 403)
    cookie = demo_server.cookie()
    missing = httpx.get(f"{demo_server.base}/s/s99/inspector.jsonl", headers={"cookie": cookie})
    assert missing.status_code == 404
