"""WireLog's measure of a message: about the memory it holds (its compact JSON's length plus what Python
holds each value in), the same for a subclass of a dict or list as for the base, at any depth."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest

from webclient.acp.wire_log import WireLog

# Per value, as wire_log counts it: a string 2 quotes + 49, a dict item 60 + its key + 4, a list item 9.
SIZES: list[tuple[dict[str, Any], int]] = [
    ({}, 2),
    ({"a": "xy"}, 1 + 64 + 1 + (2 + 2 + 49)),
    ({"n": None, "t": True, "f": False, "i": 12}, 1 + 4 * 64 + 4 + 4 + 4 + 5 + 2),
    ({"l": ["x", 1, []]}, 1 + 64 + 1 + (1 + 3 * 9 + (1 + 2 + 49) + 1 + 2)),
    ({"d": {"e": {}}}, 1 + 64 + 1 + (1 + 64 + 1 + 2)),
]


@pytest.mark.parametrize(("message", "size"), SIZES)
def test_a_message_is_measured_by_its_values(message: dict[str, Any], size: int) -> None:
    assert WireLog().record("in", message).size == size


def test_a_subclass_of_a_dict_or_a_list_measures_as_its_base() -> None:
    plain = {"params": {"a": ["x", {"b": "y"}]}}
    sub: dict[str, Any] = OrderedDict(params=OrderedDict(a=list(["x", OrderedDict(b="y")])))
    assert WireLog().record("in", sub).size == WireLog().record("in", plain).size


def test_a_message_nested_deeper_than_pythons_recursion_limit_is_measured() -> None:
    # An agent may send JSON nested as deep as the parser takes; the measure walks it without recursion.
    message: dict[str, Any] = {}
    inner = message
    for _ in range(5000):
        inner["a"] = {}
        inner = inner["a"]
    assert WireLog().record("in", message).size == 5000 * (1 + 64 + 1) + 2
