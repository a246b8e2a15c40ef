"""Reading a protocol inspector download into a replay: turns, the opening, and the line that is wrong."""

from __future__ import annotations

import json
from typing import Any

import pytest

from webclient.agent_config import AgentConfig, ConfigError, build_catalog
from webclient.replay_agent.recording import RecordingError, parse


def line(t_ms: float, direction: str, message: dict[str, Any], response: bool = False) -> str:
    method = message.get("method")
    return json.dumps(
        {
            "seq": 1,
            "t_ms": t_ms,
            "direction": direction,
            "method": method,
            "response": response,
            "id": message.get("id"),
            "rtt_ms": None,
            "version": 1,
            "message": message,
        }
    )


def answer(t_ms: float, request_id: int, method: str, result: Any) -> str:
    text = line(t_ms, "in", {"jsonrpc": "2.0", "id": request_id, "result": result}, response=True)
    record = json.loads(text)
    record["method"] = method
    return json.dumps(record)


def update(t_ms: float, body: dict[str, Any]) -> str:
    return line(
        t_ms,
        "in",
        {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "rec-1", "update": body}},
    )


def prompt(t_ms: float, request_id: int, text: str) -> str:
    params = {"sessionId": "rec-1", "prompt": [{"type": "text", "text": text}]}
    return line(
        t_ms, "out", {"jsonrpc": "2.0", "id": request_id, "method": "session/prompt", "params": params}
    )


CHUNK = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}
SUGGEST = {"sessionUpdate": "prompt_suggestions_update", "suggestions": [{"text": "more"}]}
SESSION = [
    line(0, "out", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}),
    answer(5, 0, "initialize", {"protocolVersion": 1, "agentCapabilities": {}}),
    line(6, "out", {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/w"}}),
    answer(10, 1, "session/new", {"sessionId": "rec-1"}),
    update(12, {"sessionUpdate": "available_commands_update", "availableCommands": []}),
    prompt(100, 2, "hello"),
    update(150, CHUNK),
    answer(200, 2, "session/prompt", {"stopReason": "end_turn"}),
    update(210, SUGGEST),
    prompt(1000, 3, "and then"),
    update(1300, CHUNK),
]


def test_turns_hold_what_the_agent_sent_from_one_prompt_to_the_next_with_their_delays() -> None:
    recording = parse("\n".join(SESSION) + "\n")
    assert recording.version == 1 and recording.session_id == "rec-1"
    assert [s.delay_ms for s in recording.opening] == [2]
    first, second = recording.turns
    assert first.prompt == "hello"
    assert [(s.kind, s.delay_ms) for s in first.steps] == [("notify", 50), ("answer", 100), ("notify", 110)]
    assert first.steps[1].result == {"stopReason": "end_turn"}
    assert first.steps[2].params["update"] == SUGGEST
    # Downloaded mid-turn: the turn ends as v1 ends one, after its last update.
    assert [(s.kind, s.delay_ms) for s in second.steps] == [("notify", 300), ("answer", 300)]


def test_a_line_that_is_not_an_inspector_record_is_named() -> None:
    broken = [*SESSION[:3], '{"jsonrpc": "2.0", "method": "session/update"}', *SESSION[3:]]
    with pytest.raises(RecordingError, match=r"rec.jsonl line 4 has no \"direction\""):
        parse("\n".join(broken), "rec.jsonl")
    with pytest.raises(RecordingError, match=r"line 2 is not JSON"):
        parse(SESSION[0] + "\nnot json\n", "rec.jsonl")


def test_a_recording_without_the_connection_or_a_session_says_what_is_missing() -> None:
    with pytest.raises(RecordingError, match="no answer to initialize"):
        parse("\n".join(SESSION[2:]))
    with pytest.raises(RecordingError, match="no answer to session/new"):
        parse("\n".join(SESSION[:2]))
    with pytest.raises(RecordingError, match="is empty"):
        parse("\n\n")


def test_replay_agent_runs_the_bundled_player_with_the_absolute_recording(tmp_path: Any) -> None:
    recorded = tmp_path / "rec.jsonl"
    recorded.write_text("\n".join(SESSION))
    catalog = build_catalog(f"replay:{recorded} --speed 3", AgentConfig())
    assert catalog.default.argv[1:] == ("-m", "webclient.replay_agent", str(recorded), "--speed", "3")
    with pytest.raises(ConfigError, match="names no recording"):
        build_catalog(f"replay:{tmp_path / 'missing.jsonl'}", AgentConfig())
