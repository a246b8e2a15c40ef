"""What a line from the agent may hold once parsed: valid text, a bounded depth, numbers Python can use.

Every message of every version passes through `parse_line` (the transport's one parser), so nothing
above the protocol layer ever sees:

- a lone UTF-16 surrogate (JSON's ``"\\ud800"``, or its raw UTF-8 bytes, which `json.loads` lets
  through): one in a title used to make every page fail to encode. Each becomes U+FFFD, the Unicode
  replacement character, which is the mark the page shows where the agent's text was broken;
- a value nested deeper than `MAX_DEPTH`: the SDK's models and our own walks recurse, and a message
  500 levels deep used to kill the receive loop. The deeper part is replaced by `TOO_DEEP` (a string,
  so the message's envelope, and its id, survive and the field reads as malformed);
- an integer too long for `float()` (a 4000-digit cost figure raised OverflowError in a translator):
  one of more than `MAX_INT_DIGITS` digits is read as a float, infinite if it must be.

The checks cost a scan of the line's bytes in C; the Python walk runs only for a line that may need it.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 64
MAX_INT_DIGITS = 300  # float() takes any integer of up to 308 digits
TOO_DEEP = "[nested too deep: cut by webclient]"
REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")


def parse_line(text: bytes) -> Any:
    """The line's JSON value, made safe as this module says; None when the line is not JSON."""
    try:
        # As `json.loads(bytes)` does, less its guess of UTF-16 and UTF-32, which ndjson never is.
        value = _DECODER.decode(text.decode("utf-8", "surrogatepass"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        # RecursionError: a line nested past what the parser takes ("[[[[…") is garbage, not a reason
        # to stop reading.
        return None
    deep = text.count(b"[") + text.count(b"{") > MAX_DEPTH  # fewer openers cannot nest deeper
    # Bytes that may stand for a surrogate: a JSON escape \uD800-\uDFFF, or UTF-8's ED lead byte (which
    # Hangul shares: such a line is walked, and left as it is).
    if deep or b"\\ud" in text or b"\\uD" in text or b"\xed" in text:
        return clean(value)
    return value


def usable_id(message: dict[str, Any]) -> bool:
    """JSON-RPC ids are strings, integers or null: a message with another (an array once killed the
    SDK's receive loop) can answer none of our requests, so it is garbage."""
    request_id = message.get("id")
    return request_id is None or isinstance(request_id, str) or type(request_id) is int


def clean(value: Any, depth: int = 0) -> Any:
    """`value` with every string (object keys too) valid and nothing nested past `MAX_DEPTH`."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, dict | list) and depth >= MAX_DEPTH:
        return TOO_DEEP
    if isinstance(value, dict):
        return {valid_text(key): clean(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list):
        return [clean(item, depth + 1) for item in value]
    return value


def valid_text(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD (JSON has already joined every valid pair)."""
    return _SURROGATE.sub(REPLACEMENT, text)


def _integer(digits: str) -> int | float:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        return float(digits)  # inf: absurd, but a number every reader can take
    return int(digits)


_DECODER = json.JSONDecoder(parse_int=_integer)
