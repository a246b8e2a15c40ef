"""A remote agent's frames are read as a stdio agent's lines are: valid text, a bounded depth, usable
numbers and ids (webclient/acp/wire_values.py)."""

from __future__ import annotations

from typing import Any

from webclient.acp.remote.frames import UNREADABLE, FrameChannel, parse_frame
from webclient.acp.wire_values import MAX_DEPTH, TOO_DEEP


def test_a_frame_with_a_lone_surrogate_a_deep_value_or_a_huge_integer_is_made_safe() -> None:
    assert parse_frame('{"title": "cut \\ud83d"}') == {"title": "cut \ufffd"}
    deep = parse_frame('{"v": ' + "[" * (MAX_DEPTH + 10) + "]" * (MAX_DEPTH + 10) + "}")
    inner = deep["v"]
    for _ in range(MAX_DEPTH - 1):
        inner = inner[0]
    assert inner == TOO_DEEP
    assert parse_frame('{"cost": ' + "9" * 4000 + "}") == {"cost": float("inf")}
    assert parse_frame("{not json") is UNREADABLE and parse_frame("  ") is UNREADABLE


class Frames(FrameChannel):
    def __init__(self, texts: list[str], garbage: list[str]) -> None:
        super().__init__(garbage.append, None)
        self._texts = texts

    async def _next(self) -> tuple[Any, str] | None:
        return (parse_frame(text := self._texts.pop(0)), text) if self._texts else None


async def test_a_frame_whose_id_is_an_array_is_garbage_and_the_next_one_comes_through() -> None:
    garbage: list[str] = []
    channel = Frames(['{"jsonrpc": "2.0", "id": [1], "result": {}}', '{"jsonrpc": "2.0", "id": 1}'], garbage)
    assert await channel.receive() == {"jsonrpc": "2.0", "id": 1}
    assert garbage == ['{"jsonrpc": "2.0", "id": [1], "result": {}}']
