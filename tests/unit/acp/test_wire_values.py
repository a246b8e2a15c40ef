"""What a line from the agent may hold once parsed: valid text, a bounded depth, usable numbers."""

from __future__ import annotations

import json

from webclient.acp.wire_values import MAX_DEPTH, TOO_DEEP, parse_line


def test_a_lone_surrogate_anywhere_becomes_the_replacement_character() -> None:
    line = json.dumps({"id": 1, "result": {"title\ud800": ["half \ud83d", {"t": "\udc00 end"}]}})
    assert "\\ud800" in line  # json.dumps writes the escape, as a JavaScript agent's JSON.stringify does

    value = parse_line(line.encode())

    assert value == {"id": 1, "result": {"title\ufffd": ["half \ufffd", {"t": "\ufffd end"}]}}
    json.dumps(value, ensure_ascii=False).encode("utf-8")  # encodable: this raised before


def test_a_surrogate_in_raw_utf8_bytes_is_replaced_too() -> None:
    assert parse_line(b'{"text": "a\xed\xa0\x80b"}') == {"text": "a\ufffdb"}


def test_valid_pairs_and_text_that_only_looks_suspicious_are_kept() -> None:
    assert parse_line(b'{"t": "\\ud83d\\ude00"}') == {"t": "\U0001f600"}
    assert parse_line('{"t": "한국어"}'.encode()) == {"t": "한국어"}  # UTF-8 ED lead bytes, valid


def test_a_value_nested_past_the_bound_is_cut_and_the_envelope_kept() -> None:
    deep: object = "bottom"
    for _ in range(900):
        deep = [deep]
    value = parse_line(json.dumps({"jsonrpc": "2.0", "id": 7, "result": deep}).encode())

    assert value["id"] == 7
    level, depth = value["result"], 1
    while isinstance(level, list):
        level, depth = level[0], depth + 1
    assert level == TOO_DEEP and depth == MAX_DEPTH


def test_a_line_nested_past_what_the_parser_takes_is_not_json() -> None:
    assert parse_line(b"[" * 100_000 + b"]" * 100_000) is None


def test_an_integer_too_long_for_a_float_becomes_infinity_and_short_ones_stay_exact() -> None:
    value = parse_line(b'{"cost": ' + b"9" * 4000 + b', "id": 12345678901234567890, "n": -3}')
    assert value == {"cost": float("inf"), "id": 12345678901234567890, "n": -3}
    float(value["id"])


def test_lines_that_are_not_json_are_none() -> None:
    assert parse_line(b"{not json") is None
    assert parse_line(b"\xff\xfe") is None
