"""The protocol inspector's log: routing by session, response matching, filter, JSONL, bounds, rendering."""

from __future__ import annotations

import json
from typing import Any

from webclient.acp.wire_log import RESPONSE, WireLog, filter_entries, pretty, session_jsonl
from webclient.domain.state import SessionState
from webclient.views.inspector import RENDER_CAP, Cursor, InspectorFeed


def request(id_: Any, method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


def notification(method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def result(id_: Any, value: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "result": value}


def update(session_id: str, kind: str) -> dict[str, Any]:
    return notification("session/update", sessionId=session_id, update={"sessionUpdate": kind})


def opened_log() -> WireLog:
    """initialize, then two sessions A and B created, each with a prompt."""
    log = WireLog()
    log.record("out", request(0, "initialize", protocolVersion=1), version=1, at=10.0)
    log.record("in", result(0, {"protocolVersion": 1}), version=1, at=10.1)
    log.record("out", request(1, "session/new", cwd="/w"), version=1, at=11.0)
    log.record("in", update("A", "available_commands_update"), version=1, at=11.05)
    log.record("in", result(1, {"sessionId": "A"}), version=1, at=11.2)
    log.record("out", request(2, "session/new", cwd="/w"), version=1, at=12.0)
    log.record("in", result(2, {"sessionId": "B"}), version=1, at=12.1)
    log.record("out", request(3, "session/prompt", sessionId="A", prompt=[]), version=1, at=13.0)
    log.record("in", update("A", "agent_message_chunk"), version=1, at=13.1)
    log.record("in", result(3, {"stopReason": "end_turn"}), version=1, at=13.5)
    return log


def methods(entries: list[Any]) -> list[str]:
    return [e.label for e in entries]


def test_messages_route_to_their_session_and_connection_messages_to_every_session() -> None:
    log = opened_log()
    assert methods(log.view("A")) == [
        "initialize",
        "initialize (response)",
        "session/new",
        "session/update",
        "session/new (response)",
        "session/prompt",
        "session/update",
        "session/prompt (response)",
    ]
    assert methods(log.view("B")) == [
        "initialize",
        "initialize (response)",
        "session/new",
        "session/new (response)",
    ]


def test_each_session_new_request_belongs_to_the_session_its_answer_created() -> None:
    log = opened_log()
    assert [e.seq for e in log.view("A") if e.method == "session/new"] == [3]
    assert [e.seq for e in log.view("B") if e.method == "session/new"] == [6]


def test_a_response_carries_its_requests_method_and_round_trip_time() -> None:
    log = opened_log()
    answer = log.view("A")[-1]
    assert answer.method == RESPONSE
    assert answer.request_method == "session/prompt"
    assert answer.request_id == 3
    assert answer.rtt_ms == 500.0
    assert answer.session_id == "A"


def test_our_request_ids_and_the_agents_request_ids_are_separate() -> None:
    log = WireLog()
    log.record("out", request(7, "session/prompt", sessionId="A", prompt=[]), at=1.0)
    log.record("in", request(7, "fs/read_text_file", sessionId="B", path="/w/x"), at=1.5)
    ours = log.record("out", result(7, {"content": "x"}), at=1.6)  # we answer the agent's request 7
    theirs = log.record("in", result(7, {"stopReason": "end_turn"}), at=2.0)  # the agent answers ours
    assert (ours.request_method, ours.session_id, ours.rtt_ms) == ("fs/read_text_file", "B", 100.0)
    assert (theirs.request_method, theirs.session_id, theirs.rtt_ms) == ("session/prompt", "A", 1000.0)


def test_a_response_to_no_known_request_is_kept_in_connection_scope() -> None:
    log = WireLog()
    entry = log.record("in", result("nope", {}), at=1.0)
    assert entry.session_id is None and entry.rtt_ms is None and entry.label == RESPONSE
    assert log.view("A") == [entry]


def test_a_new_initialize_forgets_the_old_connections_pending_requests() -> None:
    log = WireLog()
    log.record("out", request(1, "session/prompt", sessionId="A", prompt=[]), at=1.0)
    log.record("out", request(0, "initialize"), at=2.0)  # the agent restarted: ids start again
    answer = log.record("in", result(1, {}), at=2.5)
    assert answer.request_method is None


def test_filter_matches_method_response_and_update_kind_ignoring_case() -> None:
    log = opened_log()
    log.record("in", update("A", "prompt_suggestions_update"), at=14.0)
    found = filter_entries(log.view("A"), " PROMPT ")
    assert methods(found) == ["session/prompt", "session/prompt (response)", "session/update"]
    assert found[-1].kind == "prompt_suggestions_update"
    assert filter_entries(log.view("A"), "") == log.view("A")


def test_jsonl_has_one_object_per_line_with_times_since_the_session_started() -> None:
    log = opened_log()
    lines = session_jsonl(log, "A").splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == 8
    assert set(records[0]) >= {"seq", "t_ms", "direction", "method", "id", "rtt_ms", "message"}
    first, answer = records[0], records[-1]
    assert first["method"] == "initialize" and first["t_ms"] == -1000.0  # before session A began
    assert answer == {
        "seq": 10,
        "t_ms": 2500.0,
        "direction": "in",
        "method": "session/prompt",
        "response": True,
        "id": 3,
        "rtt_ms": 500.0,
        "version": 1,
        "message": result(3, {"stopReason": "end_turn"}),
    }
    only = [json.loads(line)["method"] for line in session_jsonl(log, "A", "new").splitlines()]
    assert only == ["session/new", "session/new"]


def test_each_scope_is_bounded_on_its_own_and_counts_what_it_dropped() -> None:
    log = WireLog(scope_size=3)
    log.record("in", update("B", "plan"), at=0.5)
    for i in range(5):
        log.record("in", update("A", "agent_message_chunk"), at=float(i + 1))
    assert [e.at for e in log.view("A")] == [3.0, 4.0, 5.0]
    assert log.dropped("A") == 2
    assert len(log.view("B")) == 1 and log.dropped("B") == 0


def test_pretty_json_is_indented_and_long_messages_are_cut() -> None:
    assert pretty({"a": 1}) == '{\n  "a": 1\n}'
    cut = pretty({"text": "x" * 100}, limit=20)
    assert cut.startswith('{\n  "text": "xxxxxxx') and "download the log" in cut


def feed_with(count: int) -> tuple[WireLog, SessionState, InspectorFeed]:
    log = WireLog()
    state = SessionState()
    state.session_id = "A"
    for i in range(count):
        log.record("in", update("A", "agent_message_chunk"), at=float(i))
    return log, state, InspectorFeed(log, state)


def test_a_new_tab_gets_the_newest_entries_then_only_what_it_has_not_seen() -> None:
    log, _, feed = feed_with(3)
    cursor = Cursor()
    first = feed.batch().frame_for(cursor)
    assert first.count('data-testid="inspector-entry"') == 3
    assert 'id="inspector-entries"' in first and 'hx-swap-oob="outerHTML"' in first
    assert feed.batch().frame_for(cursor) == ""
    log.record("out", request(9, "session/cancel", sessionId="A"), at=9.0)
    delta = feed.batch().frame_for(cursor)
    assert delta.count('data-testid="inspector-entry"') == 1
    assert 'hx-swap-oob="beforeend:#inspector-entries"' in delta
    assert 'data-method="session/cancel"' in delta and 'data-direction="out"' in delta


def test_a_flood_renders_at_most_the_cap_with_a_note_about_the_rest() -> None:
    _, _, feed = feed_with(RENDER_CAP + 20)
    frame = feed.batch().frame_for(Cursor())
    assert frame.count('data-testid="inspector-entry"') == RENDER_CAP
    assert "20 older entries are not shown" in frame


def test_a_session_that_changes_id_gets_its_list_replaced() -> None:
    log, state, feed = feed_with(2)
    cursor = Cursor()
    feed.batch().frame_for(cursor)
    state.session_id = "B"
    log.record("in", update("B", "plan"), at=5.0)
    frame = feed.batch().frame_for(cursor)
    assert 'id="inspector-entries"' in frame and frame.count('data-testid="inspector-entry"') == 1


def test_message_content_is_escaped_in_the_panel() -> None:
    log, _, feed = feed_with(0)
    log.record("in", notification("session/update", sessionId="A", update={"text": "<img src=x onerror=1>"}))
    frame = feed.batch().frame_for(Cursor())
    assert "<img" not in frame and "&lt;img src=x onerror=1&gt;" in frame


def big_update(session_id: str, n: int, size: int) -> dict[str, Any]:
    return notification(
        "session/update",
        sessionId=session_id,
        update={"sessionUpdate": "tool_call_update", "toolCallId": f"t{n}", "rawOutput": "o" * size},
    )


def test_each_scope_is_bounded_in_bytes_too_and_keeps_the_newest() -> None:
    log = WireLog(scope_bytes=13_000)
    log.record("in", update("B", "plan"))
    for n in range(10):
        log.record("in", big_update("A", n, 3_000))
    kept = log.view("A")
    assert [e.message["params"]["update"]["toolCallId"] for e in kept] == ["t7", "t8", "t9"]
    assert sum(e.size for e in kept) <= 13_000
    assert log.dropped("A") == 7 and log.dropped("B") == 0
    assert [m["params"]["sessionId"] for _, m in log.messages()] == ["B", "A", "A", "A"]


def test_a_message_counts_as_its_compact_json_and_the_objects_holding_it_against_the_cap() -> None:
    log = WireLog()
    messages = [
        update("A", "agent_message_chunk"),
        request(7, "session/prompt", sessionId="A", prompt=[{"type": "text", "text": "hi"}], meta={}),
        result(7, {"stopReason": "end_turn", "usage": [1, 2.5, -3, None, True, False, [], {}]}),
        big_update("A", 1, 5_000_000),
    ]
    for message in messages:
        entry = log.record("in", message)
        text = len(json.dumps(message, separators=(",", ":")))
        # A small message weighs what Python holds it in (a flood of tiny ones once took 150 MiB for 15 MB
        # of JSON); a big one, about its text.
        assert text + 100 < entry.size < text * 1.01 + 4096


def test_one_message_over_the_byte_cap_is_still_shown_alone() -> None:
    log = WireLog(scope_bytes=1_000)
    log.record("in", big_update("A", 1, 5_000))
    log.record("in", big_update("A", 2, 5_000))
    assert [e.message["params"]["update"]["toolCallId"] for e in log.view("A")] == ["t2"]
    assert log.dropped("A") == 1


def test_the_panel_says_how_many_older_entries_were_dropped() -> None:
    log = WireLog(scope_bytes=13_000)
    state = SessionState()
    state.session_id = "A"
    for n in range(60):
        log.record("in", big_update("A", n, 3_000))
    frame = InspectorFeed(log, state).batch().frame_for(Cursor())
    assert frame.count('data-testid="inspector-entry"') == 3
    assert "57 older entries were dropped to keep memory bounded." in frame
    assert "download to see" not in frame  # the download does not have them either


def test_a_note_sits_in_wire_order_in_every_session_and_in_the_download() -> None:
    log = WireLog()
    log.record("out", request(0, "initialize", protocolVersion=2), version=2, at=1.0)
    log.record("in", result(0, {"protocolVersion": 1}), version=2, at=1.1)
    note = log.note("The agent answered ACP version 1, so webclient restarted it", at=1.2)
    log.record("out", request(0, "initialize", protocolVersion=1), version=1, at=1.5)
    entries = log.view("A")
    assert [e.direction for e in entries] == ["out", "in", "note", "out"]
    assert note.is_note and not entries[0].is_note
    assert [e.version for e in entries] == [2, 2, None, 1]
    records = [json.loads(line) for line in session_jsonl(log, "A").splitlines()]
    assert records[2]["message"] == {"note": "The agent answered ACP version 1, so webclient restarted it"}
    assert [r["version"] for r in records] == [2, 2, None, 1]
