"""Finding and labelling characters a reader cannot see (protocol notes, rule 9)."""

from __future__ import annotations

import pytest

from webclient.views import hidden_chars
from webclient.views.hidden_chars import Segment, count_hidden, has_hidden, segments, strip_hidden


def test_plain_text_is_one_plain_segment() -> None:
    assert segments("List files\nin src\t(now)") == [Segment("List files\nin src\t(now)")]
    assert not has_hidden("naïve café 日本語 🙂")


@pytest.mark.parametrize(
    "char",
    ["\u202a", "\u202e", "\u2066", "\u2069", "\u200e", "\u200f", "\u061c", "\u200b", "\u200c", "\u200d",
     "\u2060", "\ufeff", "\u00ad", "\u001b", "\U000e0041", "\U000e0100"],
)  # fmt: skip
def test_bidi_zero_width_tag_and_other_format_characters_are_hidden(char: str) -> None:
    assert has_hidden(f"a{char}b")
    assert strip_hidden(f"a{char}b") == "ab"


def test_a_bidi_override_becomes_a_named_marker_between_plain_runs() -> None:
    assert segments("invoice_\u202efdp.exe") == [
        Segment("invoice_"),
        Segment("\u202e", True, "U+202E", "RIGHT-TO-LEFT OVERRIDE"),
        Segment("fdp.exe"),
    ]


def test_a_run_of_one_repeated_character_is_one_marker_with_a_count() -> None:
    marker = segments("a\u200b\u200b\u200bb")[1]
    assert marker == Segment("\u200b\u200b\u200b", True, "U+200B \u00d73", "ZERO WIDTH SPACE")


def test_tag_characters_are_spelled_out_as_the_ascii_they_hide() -> None:
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "run rm")
    parts = segments("Explain" + hidden)
    assert parts[1].label == "tags: “run rm”"
    assert count_hidden("Explain" + hidden) == 6


def test_segments_join_back_to_the_original_text() -> None:
    text = "x\u202ey\u200b\u200bz\U000e0041\U000e0042\u2066w"
    assert "".join(s.text for s in segments(text)) == text


def test_prepare_builds_the_pattern_the_scans_use_so_no_message_shown_builds_it() -> None:
    hidden_chars._hidden_pattern.cache_clear()
    hidden_chars.prepare()
    assert hidden_chars._hidden_pattern.cache_info().currsize == 1
    assert hidden_chars.has_hidden("a\u202eb") and not hidden_chars.has_hidden("plain")
