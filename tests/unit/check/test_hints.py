"""The hints under a failing rule: the offending message kept whole, folded for reading, and opened in
the playground by a share link that holds it."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import parse_qs

from webclient.check.hints import fold, hint, playground_link
from webclient.check.recorder import LINE_CHARS, Numbering, Recorder, WireLine
from webclient.check.rules import BLANK, Status, Verdict
from webclient.check.sandbox import Sandbox


def suggestion_update(text: str) -> dict[str, object]:
    update = {
        "sessionUpdate": "prompt_suggestions_update",
        "suggestions": [{"prompt": [{"type": "text", "text": text}]}],
    }
    return {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1", "update": update}}


def test_a_suggestion_update_is_recorded_whole_and_any_other_long_line_is_cut(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path)
    try:
        numbering = Numbering()
        recorder = Recorder("v1 offer-baseline", numbering, sandbox)
        long_text = "x" * (3 * LINE_CHARS)
        recorder.on_wire("in", suggestion_update(long_text), 1)
        recorder.on_wire(
            "in", {"jsonrpc": "2.0", "method": "session/update", "params": {"text": long_text}}, 1
        )
    finally:
        sandbox.close()
    kept, cut = numbering.lines
    assert json.loads(kept.text) == suggestion_update(long_text)
    assert len(cut.text) == LINE_CHARS + 1 and cut.text.endswith("…")


def test_the_playground_link_holds_the_update_and_the_types_its_run_offered() -> None:
    wire = WireLine(7, "v2 offer-image", "in", json.dumps(suggestion_update("Run the tests")))
    link = playground_link("http://127.0.0.1:8765/playground", wire)
    assert link is not None
    base, _, fragment = link.partition("#")
    shared = parse_qs(fragment)
    assert (
        base == "http://127.0.0.1:8765/playground" and shared["v"] == ["1"] and shared["types"] == ["image"]
    )
    encoded = shared["t"][0]
    update = json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
    assert update["suggestions"][0]["prompt"][0]["text"] == "Run the tests"
    answer = WireLine(8, "v2 offer-image", "in", '{"jsonrpc": "2.0", "id": 1, "result": {}}')
    assert playground_link("http://x/playground", answer) is None


def test_the_culprit_is_the_offending_message_and_only_a_fail_has_one() -> None:
    first = WireLine(3, "v1 offer-baseline", "in", json.dumps(suggestion_update("fine")))
    second = WireLine(5, "v1 offer-baseline", "in", json.dumps(suggestion_update("  ")))
    failed = hint(Verdict(BLANK, Status.FAIL, "a blank one", (3, 5), culprit=5), [first, second])
    assert failed.offending == second and failed.playground is not None and "suggestions: []" in failed.fix
    passed = hint(Verdict(BLANK, Status.PASS, "none blank", (3,)), [first])
    assert (
        passed.offending is None
        and passed.playground is None
        and "prompt_suggestions_update" in passed.example
    )


def test_fold_puts_what_fits_on_one_line_and_stays_the_same_json() -> None:
    value = suggestion_update("Run the tests")
    folded = fold(value, width=60)
    assert json.loads(folded) == value
    assert '"prompt": [{"type": "text", "text": "Run the tests"}]' in folded
    assert all(len(line) <= 88 for line in fold(value).splitlines())
