"""Prompt suggestions, Client side: one test per Client rule of protocol notes section 1, plus the details.

The pure parts (`webclient.acp.suggestions`, `webclient.domain.suggestions`, `SessionState`) are
tested directly; the rules that live in the wiring (per-session updates, sending a chosen suggestion)
drive a `SessionRegistry` that was never started, with a fake agent connection that records what would go out.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.support.polling import eventually
from webclient.acp.capabilities import (
    SUGGESTION_CONTENT_TYPES,
    client_capabilities,
    initialize_params,
    initialize_params_v2,
)
from webclient.acp.content_blocks import prompt_to_wire
from webclient.acp.models import (
    AgentStatus,
    NoticeLevel,
    PromptBlock,
    PromptCapabilities,
    ResourceLinkPart,
    Suggestion,
    SuggestionsEvent,
    TextPart,
)
from webclient.acp.suggestions import (
    BASELINE_TYPES,
    MalformedUpdate,
    allowed_types,
    offered_types,
    parse_legacy,
    parse_update,
)
from webclient.acp.v1.answers import agent_capabilities
from webclient.acp.v1.translate import translate_update
from webclient.acp.wire_log import WireLog
from webclient.domain.changes import PendingChanges
from webclient.domain.files import FileAccess
from webclient.domain.items import MessageItem, NoticeItem
from webclient.domain.live_session import LiveSession
from webclient.domain.registry import SessionRegistry
from webclient.domain.state import Aspect, SessionState
from webclient.domain.suggestions import Outcome, SuggestionLedger, SuggestionPolicy
from webclient.errors import Refused
from webclient.settings import Settings

EVERY_TYPE = BASELINE_TYPES | {"image", "audio", "resource"}
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def link(name: str) -> dict[str, Any]:
    return {"type": "resource_link", "name": name, "uri": f"file:///home/user/app/{name}"}


def image(mime: str = "image/png", data: str = PNG) -> dict[str, Any]:
    return {"type": "image", "mimeType": mime, "data": data}


def sug(*blocks: Any, **extra: Any) -> dict[str, Any]:
    return {"prompt": list(blocks), **extra}


def update(*suggestions: Any) -> dict[str, Any]:
    return {"sessionUpdate": "prompt_suggestions_update", "suggestions": list(suggestions)}


def texts(suggestions: tuple[Suggestion, ...] | None) -> list[str]:
    assert suggestions is not None, "the update was expected to replace the list"
    return [s.text for s in suggestions]


class Ledger(SuggestionLedger):
    """The session's ledger, fed as a connection feeds it: each update through the v1 translation, which
    parses suggestions against the negotiated block types (`allowed`) before the ledger sees them."""

    def __init__(self, advertised: bool, allowed: frozenset[str]) -> None:
        super().__init__(SuggestionPolicy(advertised=advertised))
        self.allowed = allowed

    def receive_update(self, body: dict[str, Any]) -> Outcome:
        """A `prompt_suggestions_update` with this body arrived."""
        return self._feed(body)

    def receive_legacy(self, meta: dict[str, Any] | None) -> Outcome:
        """A `session_info_update` with this `_meta` arrived (none: it had no `_meta`)."""
        return self._feed({"sessionUpdate": "session_info_update", **({"_meta": meta} if meta else {})})

    def _feed(self, body: dict[str, Any]) -> Outcome:
        events = translate_update(params("s1", body), self.allowed).events
        found = [event for event in events if isinstance(event, SuggestionsEvent)]
        assert len(found) <= 1, found
        return self.receive(found[0]) if found else Outcome(None)


def ledger(advertised: bool = True, allowed: frozenset[str] = BASELINE_TYPES) -> Ledger:
    return Ledger(advertised, allowed)


def parse(*suggestions: Any, allowed: frozenset[str] = BASELINE_TYPES) -> tuple[list[str], list[int]]:
    """(texts kept, indexes skipped) of one update."""
    parsed = parse_update(update(*suggestions), allowed)
    return [s.text for s in parsed.suggestions], [s.index for s in parsed.skipped]


# --- rule 1: advertise exactly as specified; never send without a user action ---------------------------


def test_rule1_capability_is_advertised_in_the_v1_session_group_as_objects() -> None:
    params = initialize_params(prompt_suggestions=True, jetbrains_air=False)

    assert params["protocolVersion"] == 1
    offer = params["clientCapabilities"]["session"]["promptSuggestions"]
    assert offer == dict(SUGGESTION_CONTENT_TYPES)
    assert set(offer) <= {"image", "audio", "embeddedContext"}
    assert all(value == {} for value in offer.values())  # objects, never v1-style booleans
    assert "_meta" not in params["clientCapabilities"]


def test_rule1_switched_off_means_no_prompt_suggestions_in_the_session_group() -> None:
    caps = client_capabilities(prompt_suggestions=False, jetbrains_air=False)

    assert caps["session"] == {"configOptions": {"boolean": {}}}
    assert "promptSuggestions" not in str(caps)


def test_rule1_jetbrains_air_switch_declares_the_legacy_marker_object() -> None:
    assert "_meta" not in client_capabilities(prompt_suggestions=True, jetbrains_air=False)
    caps = client_capabilities(prompt_suggestions=False, jetbrains_air=True)
    assert caps["_meta"] == {"jetbrains": {"air": {}}}


async def test_rule1_receiving_and_offering_suggestions_sends_nothing_to_the_agent(tmp_path: Path) -> None:
    registry, live, agent = ready_session(tmp_path)

    registry.on_update(translate_update(params("s1", update(sug(text("Run the tests"))))))

    assert texts(live.state.suggestions) == ["Run the tests"]
    await asyncio.sleep(0)
    assert agent.prompts == []


# --- rule 2: each update replaces the list; [] withdraws; order is kept ---------------------------------


def test_rule2_each_update_replaces_the_list() -> None:
    book = ledger()

    first = book.receive_update(update(sug(text("A")), sug(text("B"))))
    second = book.receive_update(update(sug(text("C"))))

    assert texts(first.offered) == ["A", "B"]
    assert texts(second.offered) == ["C"]


def test_rule2_empty_list_withdraws_everything() -> None:
    book = ledger()
    book.receive_update(update(sug(text("A"))))

    outcome = book.receive_update(update())

    assert outcome.offered == ()
    assert outcome.notices == ()


def test_rule2_order_is_kept_most_likely_first() -> None:
    kept, _ = parse(*(sug(text(name)) for name in ["third", "first", "second", "zeta", "alpha"]))

    assert kept == ["third", "first", "second", "zeta", "alpha"]


def test_rule2_state_replaces_the_offer_and_changes_the_generation_each_time() -> None:
    state = SessionState()
    a, b, c = (parse_update(update(sug(text(n))), BASELINE_TYPES).suggestions for n in "ABC")

    assert state.set_suggestions(a + b) == {Aspect.SUGGESTIONS}
    generation = state.suggestions_generation
    state.set_suggestions(c)
    assert texts(state.suggestions) == ["C"]
    assert state.suggestions_generation == generation + 1
    state.set_suggestions(())
    assert state.suggestions == ()
    assert state.suggestions_generation == generation + 2


# --- rule 3: an unusable suggestion is skipped whole, siblings stay -------------------------------------


def test_rule3_unusable_suggestion_is_skipped_whole_and_siblings_stay() -> None:
    parsed = parse_update(
        update(
            sug(text("first")),
            sug(text("Explain "), link("parser.py"), {"type": "mystery", "x": 1}),
            sug(text("third")),
        ),
        BASELINE_TYPES,
    )

    assert [s.text for s in parsed.suggestions] == ["first", "third"]
    [skipped] = parsed.skipped
    assert skipped.index == 1
    assert "mystery" in skipped.reason
    # whole: no trace of the good blocks of the skipped suggestion
    assert all(not s.attachments for s in parsed.suggestions)


def test_rule3_every_suggestion_skipped_still_replaces_with_empty() -> None:
    book = ledger()
    book.receive_update(update(sug(text("old"))))

    outcome = book.receive_update(update(sug(), sug(text("   ")), "not an object"))

    assert outcome.offered == ()  # replaced (not None = "leave the list as it was")
    assert [n.split(":")[0] for n in outcome.notices] == [
        "skipped suggestion 1",
        "skipped suggestion 2",
        "skipped suggestion 3",
    ]


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        (sug(), "empty prompt"),
        ({"prompt": None}, "without a prompt"),
        ({}, "without a prompt"),
        ({"prompt": "Run the tests"}, "without a prompt"),
        ("Run the tests", "must be an object"),
        (None, "must be an object"),
        (sug(text("")), "whitespace-only"),
        (sug(text(" \n\t ")), "whitespace-only"),
        (sug(text("  "), text("\n")), "whitespace-only"),
        (sug({"type": "text"}), "malformed"),
        (sug({"type": "text", "text": 42}), "malformed"),
        (sug({"text": "no type"}), "no type"),
        (sug("text"), "no type"),
        (sug({"type": "video", "uri": "x"}), "unknown type"),
        (sug(text("Show "), {"type": "resource_link", "name": "a.py"}), "malformed"),
    ],
)
def test_rule3_unusable_suggestions_are_skipped_with_a_reason(entry: Any, reason: str) -> None:
    parsed = parse_update(update(sug(text("before")), entry, sug(text("after"))), BASELINE_TYPES)

    assert [s.text for s in parsed.suggestions] == ["before", "after"]
    [skipped] = parsed.skipped
    assert skipped.index == 1
    assert reason in skipped.reason


def test_rule3_blank_text_beside_a_link_is_still_a_prompt() -> None:
    kept, skipped = parse(sug(text(" "), link("a.py")))

    assert kept == [" "]
    assert skipped == []


def test_rule3_block_type_not_allowed_on_both_sides_is_skipped_whole() -> None:
    entry = sug(text("What is in this image?"), image())

    assert parse(entry, sug(text("ok")))[1] == [0]
    kept, skipped = parse(entry, allowed=BASELINE_TYPES | {"image"})
    assert kept == ["What is in this image?"] and skipped == []


def test_rule3_skipped_reason_reaches_the_notices() -> None:
    outcome = ledger().receive_update(update(sug(text("fine")), sug(text("Look"), image())))

    assert texts(outcome.offered) == ["fine"]
    [notice] = outcome.notices
    assert notice.startswith("skipped suggestion 2:")
    assert "'image'" in notice and "not allowed on both sides" in notice


# --- rule 4: a malformed update is rejected with a diagnostic; the list stays ---------------------------


def test_rule4_update_without_suggestions_is_rejected_and_list_kept() -> None:
    book = ledger()
    book.receive_update(update(sug(text("keep me"))))

    outcome = book.receive_update({"sessionUpdate": "prompt_suggestions_update"})

    assert outcome.offered is None
    [notice] = outcome.notices
    assert "without a suggestions field" in notice and "kept" in notice


@pytest.mark.parametrize(
    ("value", "described"),
    [(None, "null"), ({"a": 1}, "an object"), ("A", "a string"), (3, "a number"), (True, "a boolean")],
)
def test_rule4_suggestions_that_is_not_a_list_is_rejected(value: Any, described: str) -> None:
    with pytest.raises(MalformedUpdate, match=described):
        parse_update({"sessionUpdate": "prompt_suggestions_update", "suggestions": value}, BASELINE_TYPES)
    outcome = ledger().receive_update({"sessionUpdate": "prompt_suggestions_update", "suggestions": value})
    assert outcome.offered is None and len(outcome.notices) == 1


def test_rule4_runtime_shows_a_visible_warning_and_the_session_goes_on(tmp_path: Path) -> None:
    registry, live, _ = ready_session(tmp_path)
    registry.on_update(translate_update(params("s1", update(sug(text("keep me"))))))

    registry.on_update(
        translate_update(params("s1", {"sessionUpdate": "prompt_suggestions_update", "suggestions": None}))
    )
    registry.on_update(translate_update(params("s1", update(sug(text("next"))))))

    warnings = notices(live, NoticeLevel.WARNING)
    assert len(warnings) == 1 and "null, not a list" in warnings[0]
    assert texts(live.state.suggestions) == ["next"]


# --- rule 5: updates for one session never touch another's list -----------------------------------------


def test_rule5_update_for_another_session_leaves_the_list_alone(tmp_path: Path) -> None:
    registry, live, _ = ready_session(tmp_path)
    registry.on_update(translate_update(params("s1", update(sug(text("mine"))))))
    generation = live.state.suggestions_generation

    registry.on_update(translate_update(params("other", update(sug(text("theirs"))))))
    registry.on_update(translate_update(params("other", update())))

    assert texts(live.state.suggestions) == ["mine"]
    assert live.state.suggestions_generation == generation
    # One notice, updated in place: it counts both.
    [item] = [i for i in live.state.items if isinstance(i, NoticeItem)]
    assert item.notice.text.startswith(
        "ignored updates for unknown sessions: 2 in all, the latest for 'other'"
    )


def test_rule5_ledgers_are_independent() -> None:
    one, two = ledger(), ledger()
    one.receive_update(update(sug(text("A"))))
    one.prompt_accepted()

    assert two.turn_settled() == ()
    assert one.turn_settled() != ()


# --- rule 6: a selected suggestion goes out deep-equal --------------------------------------------------


def test_rule6_wire_blocks_are_kept_deep_equal() -> None:
    blocks = [
        {"type": "text", "text": "Explain the change in ", "annotations": {"priority": 0.5}},
        {
            "type": "resource_link",
            "name": "parser.py",
            "uri": "file:///home/user/app/parser.py",
            "title": None,
            "_meta": {"example.com/x": [1, {"y": None}]},
        },
    ]
    original = copy.deepcopy(blocks)

    [kept] = parse_update(update({"prompt": blocks, "_meta": None}), BASELINE_TYPES).suggestions

    assert list(kept.wire) == original
    assert kept.text == "Explain the change in "
    assert [type(p) for p in kept.parts] == [TextPart, ResourceLinkPart]
    assert [b.original for b in kept.blocks] == original
    assert [b.part for b in kept.blocks] == list(kept.parts)


async def test_rule6_selected_suggestion_is_sent_as_session_prompt_unchanged(tmp_path: Path) -> None:
    registry, live, agent = ready_session(tmp_path)
    blocks = [text("Explain "), {**link("parser.py"), "size": 12, "_meta": {"k": "v"}}]
    registry.on_update(translate_update(params("s1", update(sug(text("other")), {"prompt": blocks}))))

    live.send_suggestion(live.state.suggestions_generation, 1)

    await eventually(lambda: agent.prompts, 5.0, "the prompt to reach the agent")
    assert agent.prompts == [("s1", copy.deepcopy(blocks))]
    user = [i for i in live.state.items if isinstance(i, MessageItem) and i.role == "user"]
    assert len(user) == 1 and [p.kind for p in user[0].parts] == ["text", "resource_link"]


async def test_rule6_choice_on_a_replaced_list_is_refused_and_nothing_is_sent(tmp_path: Path) -> None:
    registry, live, agent = ready_session(tmp_path)
    registry.on_update(translate_update(params("s1", update(sug(text("old"))))))
    stale = live.state.suggestions_generation
    registry.on_update(translate_update(params("s1", update(sug(text("new"))))))

    with pytest.raises(Refused, match="replaced"):
        live.send_suggestion(stale, 0)
    with pytest.raises(Refused, match="no such suggestion"):
        live.send_suggestion(live.state.suggestions_generation, 5)
    await asyncio.sleep(0)
    assert agent.prompts == []


# --- rule 7: sending stops the offer; the agent is told nothing -----------------------------------------


async def test_rule7_sending_a_prompt_stops_offering_and_tells_the_agent_nothing_else(tmp_path: Path) -> None:
    registry, live, agent = ready_session(tmp_path)
    registry.on_update(translate_update(params("s1", update(sug(text("A"))))))

    live.submit_prompt([TextPart(text="something else")])

    assert live.state.suggestions == ()
    await eventually(lambda: agent.prompts, 5.0, "the prompt to reach the agent")
    assert agent.prompts == [("s1", [text("something else")])]
    assert agent.other_calls == []


def test_rule7_late_list_that_crossed_a_prompt_is_simply_offered_and_later_replaced() -> None:
    book = ledger()
    book.prompt_accepted()
    assert texts(book.receive_update(update(sug(text("late")))).offered) == ["late"]
    assert book.receive_update(update()).offered == ()


# --- rule 8: never in the transcript; empty after load; nothing offered from replay ---------------------


def test_rule8_suggestions_are_not_part_of_the_transcript() -> None:
    state = SessionState()
    state.set_suggestions(parse_update(update(sug(text("A"))), BASELINE_TYPES).suggestions)

    assert state.items == []
    state.add_user_message([TextPart(text="hi")])
    assert state.suggestions == ()
    assert [i.text for i in state.items] == ["hi"]  # type: ignore[union-attr]


def test_rule8_loaded_session_starts_with_an_empty_list(tmp_path: Path) -> None:
    live = LiveSession(
        "s1",
        PendingChanges.factory,
        SuggestionPolicy(advertised=True),
        FileAccess([tmp_path]),
    )
    state = live.state
    state.set_suggestions(parse_update(update(sug(text("A"))), BASELINE_TYPES).suggestions)
    generation = state.suggestions_generation

    live.begin_replay()
    live.end_replay()

    assert state.suggestions == ()
    assert state.suggestions_generation > generation  # a choice made on the old list is refused


def test_rule8_suggestions_during_replay_are_not_offered() -> None:
    book = ledger()
    book.begin_replay()

    outcome = book.receive_update(update(sug(text("from the past"))))
    legacy = book.receive_legacy({"promptSuggestions": [{"text": "also old"}]})

    assert outcome.offered is None and legacy.offered is None
    assert any("during its replay" in n for n in outcome.notices)
    book.end_replay()
    assert texts(book.receive_update(update(sug(text("now")))).offered) == ["now"]


# --- rule 9: full text, every non-text block identified, hidden characters kept for display -------------


def test_rule9_full_text_and_hidden_characters_reach_the_ui_unchanged() -> None:
    hostile = "Run the tests" + " and more" * 500 + "\u202e\u200b\U000e0041<b>x</b>"

    [kept] = parse_update(update(sug(text(hostile))), BASELINE_TYPES).suggestions

    assert kept.text == hostile


def test_rule9_every_non_text_block_is_identified() -> None:
    [kept] = parse_update(
        update(sug(text("Compare "), link("a.py"), text(" with "), link("b.py"))), BASELINE_TYPES
    ).suggestions

    assert [(p.name, p.uri) for p in kept.attachments] == [  # type: ignore[union-attr]
        ("a.py", "file:///home/user/app/a.py"),
        ("b.py", "file:///home/user/app/b.py"),
    ]


# --- content types: gated on both sides -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("ours", "theirs", "expected"),
    [
        (None, {"image": True, "audio": True, "embeddedContext": True}, frozenset()),
        ({}, {"image": True, "audio": True, "embeddedContext": True}, BASELINE_TYPES),
        ({"image": {}}, {"image": True}, BASELINE_TYPES | {"image"}),
        ({"image": {}}, {"image": False}, BASELINE_TYPES),
        ({"image": {}}, {}, BASELINE_TYPES),
        ({"image": None}, {"image": True}, BASELINE_TYPES),
        ({"image": True}, {"image": True}, BASELINE_TYPES),  # our offer uses objects only
        ({"image": {}}, {"image": {}}, BASELINE_TYPES | {"image"}),  # v2-style object: presence counts
        ({"audio": {}}, {"audio": {"formats": []}}, BASELINE_TYPES | {"audio"}),
        ({"audio": {}}, {"audio": None}, BASELINE_TYPES),
        ({"embeddedContext": {}}, {"embeddedContext": True}, BASELINE_TYPES | {"resource"}),
        ({"embeddedContext": {}}, {"resource": True}, BASELINE_TYPES),
        (
            {"image": {}, "audio": {}, "embeddedContext": {}},
            {"image": True, "audio": {}},
            BASELINE_TYPES | {"image", "audio"},
        ),
    ],
)
def test_content_types_are_allowed_only_when_both_sides_advertise_them(
    ours: dict[str, Any] | None, theirs: dict[str, Any], expected: frozenset[str]
) -> None:
    # The agent's side as the protocol layer translates its promptCapabilities.
    agent_prompt = agent_capabilities({"promptCapabilities": theirs}).prompt
    assert allowed_types(ours, agent_prompt) == expected


@pytest.mark.parametrize("version", [1, 2])
def test_the_types_offered_are_read_from_the_initialize_we_send(version: int) -> None:
    # What a connection negotiates against the agent's prompt capabilities is what its initialize says.
    def session_group(on: bool) -> Any:
        if version == 1:
            caps = initialize_params(prompt_suggestions=on, jetbrains_air=False)["clientCapabilities"]
        else:
            caps = initialize_params_v2(prompt_suggestions=on)["capabilities"]
        return caps.get("session")

    prompt = PromptCapabilities(image=True, audio=True, embedded_context=True)
    assert allowed_types(offered_types(session_group(True)), prompt) == EVERY_TYPE
    assert allowed_types(offered_types(session_group(False)), prompt) == frozenset()


def test_the_supervisor_says_whether_suggestions_were_advertised(tmp_path: Path) -> None:
    on = SessionRegistry(Settings(cwd=tmp_path, flush_interval=0), PendingChanges.factory, WireLog())
    on.supervisor._negotiate()
    assert on.supervisor.policy.advertised

    settings = Settings(cwd=tmp_path, flush_interval=0, prompt_suggestions=False)
    off = SessionRegistry(settings, PendingChanges.factory, WireLog())
    off.supervisor._negotiate()
    assert not off.supervisor.policy.advertised


def test_embedded_resource_needs_embedded_context_on_both_sides() -> None:
    resource = {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "hello"}}

    assert parse(sug(text("Use "), resource))[1] == [0]
    assert parse(sug(text("Use "), resource), allowed=BASELINE_TYPES | {"resource"}) == (["Use "], [])


@pytest.mark.parametrize(
    ("block", "usable"),
    [
        (image("image/png"), True),
        (image("IMAGE/JPEG"), True),
        (image("image/webp"), True),
        (image("image/svg+xml"), False),  # not displayable from data in a chip
        (image("image/tiff"), False),
        (image(data="not base64!"), False),
        (image(data=""), False),
        ({"type": "audio", "mimeType": "audio/wav", "data": "UklGRg=="}, True),
        ({"type": "audio", "mimeType": "video/mp4", "data": "UklGRg=="}, False),
        ({"type": "audio", "mimeType": "audio/wav", "data": "%%%"}, False),
    ],
)
def test_media_needs_a_displayable_mime_type_and_base64_data(block: dict[str, Any], usable: bool) -> None:
    kept, skipped = parse(sug(text("Look"), block), allowed=EVERY_TYPE)

    assert (kept, skipped) == ((["Look"], []) if usable else ([], [0]))


def test_undisplayable_image_is_our_limitation_not_the_agents_fault() -> None:
    [svg] = parse_update(update(sug(image("image/svg+xml"))), EVERY_TYPE).skipped
    [bad] = parse_update(update(sug(image(data="***"))), EVERY_TYPE).skipped

    assert svg.agent_fault is False
    assert bad.agent_fault is True


# --- legacy channel -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        [{"text": "run the tests"}, {"text": "commit"}],
        {"suggestions": [{"text": "run the tests"}, {"text": "commit"}]},
    ],
    ids=["bare-list", "suggestions-object"],
)
def test_legacy_both_shapes_become_one_text_block_each(value: Any) -> None:
    parsed = parse_legacy({"promptSuggestions": value})

    assert parsed is not None
    assert [list(s.wire) for s in parsed.suggestions] == [
        [{"type": "text", "text": "run the tests"}],
        [{"type": "text", "text": "commit"}],
    ]


def test_legacy_unusable_entries_are_skipped_and_siblings_stay() -> None:
    parsed = parse_legacy({"promptSuggestions": [{"text": "  "}, "bare", {"text": 3}, {"text": "ok"}]})

    assert parsed is not None
    assert [s.text for s in parsed.suggestions] == ["ok"]
    assert [s.index for s in parsed.skipped] == [0, 1, 2]


def test_legacy_absent_or_malformed() -> None:
    assert parse_legacy(None) is None
    assert parse_legacy({"other": 1}) is None
    with pytest.raises(MalformedUpdate):
        parse_legacy({"promptSuggestions": "run the tests"})
    with pytest.raises(MalformedUpdate):
        parse_legacy({"promptSuggestions": {"suggestions": None}})


def test_legacy_is_ignored_once_a_real_update_arrived() -> None:
    book = ledger()
    assert texts(book.receive_legacy({"promptSuggestions": [{"text": "legacy"}]}).offered) == ["legacy"]

    book.receive_update(update(sug(text("real"))))
    later = book.receive_legacy({"promptSuggestions": [{"text": "legacy again"}]})

    assert later.offered is None and later.notices == ()


def test_legacy_without_the_key_changes_nothing() -> None:
    book = ledger()
    assert book.receive_legacy({"title": "x"}).offered is None
    assert book.receive_legacy(None).offered is None


def test_legacy_through_session_info_update_in_the_runtime(tmp_path: Path) -> None:
    registry, live, _ = ready_session(tmp_path)
    info = {
        "sessionUpdate": "session_info_update",
        "title": "T",
        "_meta": {"promptSuggestions": {"suggestions": [{"text": "run the tests"}]}},
    }

    registry.on_update(translate_update(params("s1", info)))

    assert texts(live.state.suggestions) == ["run the tests"]
    assert live.state.title == "T"


# --- the ledger: Agent rules a client can observe -------------------------------------------------------


def test_ledger_update_although_not_advertised_is_ignored_with_a_notice() -> None:
    outcome = ledger(advertised=False).receive_update(update(sug(text("A"))))

    assert outcome.offered is None
    [notice] = outcome.notices
    assert "did not advertise" in notice


def test_ledger_replay_is_not_offered_and_gives_a_notice_and_resets_the_withdrawal_check() -> None:
    book = ledger()
    book.receive_update(update(sug(text("A"))))
    book.prompt_accepted()
    book.begin_replay()

    outcome = book.receive_update(update(sug(text("B"))))
    book.end_replay()

    assert outcome.offered is None
    assert outcome.notices == (
        "the agent sent prompt suggestions while the session was being loaded or resumed "
        "(during its replay); they are not offered",
    )
    book.prompt_accepted()
    assert book.turn_settled() == ()  # the replayed list never counted as on offer


def test_ledger_prompt_accepted_without_an_update_gives_a_notice_once() -> None:
    book = ledger()
    book.receive_update(update(sug(text("A"))))
    book.prompt_accepted()

    [notice] = book.turn_settled()

    assert "neither replaced nor withdrew" in notice
    assert book.turn_settled() == ()


@pytest.mark.parametrize("replacement", [update(), update(sug(text("B")))], ids=["withdrawn", "replaced"])
def test_ledger_prompt_accepted_then_replacement_gives_no_notice(replacement: dict[str, Any]) -> None:
    book = ledger()
    book.receive_update(update(sug(text("A"))))
    book.prompt_accepted()

    book.receive_update(replacement)

    assert book.turn_settled() == ()


def test_ledger_empty_list_then_prompt_gives_no_notice() -> None:
    book = ledger()
    book.receive_update(update(sug(text("A"))))
    book.receive_update(update())
    book.prompt_accepted()

    assert book.turn_settled() == ()


def test_ledger_no_list_ever_then_prompt_gives_no_notice() -> None:
    book = ledger()
    book.prompt_accepted()

    assert book.turn_settled() == ()


def test_ledger_list_of_only_unusable_suggestions_still_must_be_withdrawn() -> None:
    # The agent believes it offered something, so it still owes a replacement after the next prompt.
    book = ledger()
    book.receive_update(update(sug(text(" "))))
    book.prompt_accepted()

    assert book.turn_settled() != ()


# --- helpers --------------------------------------------------------------------------------------------


class SilentProcess:
    """The agent's process, as far as a session asks: it wrote nothing to stderr."""

    def stderr_tail(self) -> list[str]:
        return []


class FakeAgent:
    """Stands in for AgentConnection: records every prompt and anything else the runtime sends."""

    def __init__(self) -> None:
        self.prompts: list[tuple[str, list[dict[str, Any]]]] = []  # as they would go on the wire
        self.other_calls: list[str] = []
        self.process = SilentProcess()

    async def prompt(self, session_id: str, blocks: Sequence[PromptBlock]) -> str:
        self.prompts.append((session_id, copy.deepcopy(prompt_to_wire(blocks))))
        return "end_turn"

    def __getattr__(self, name: str) -> Any:
        async def other(*args: Any, **kwargs: Any) -> None:
            self.other_calls.append(name)

        return other


def ready_session(
    tmp_path: Path,
) -> tuple[SessionRegistry[PendingChanges], LiveSession[PendingChanges], FakeAgent]:
    """A registry that was never started, its session as if initialize and session/new had made "s1"."""
    registry = SessionRegistry(Settings(cwd=tmp_path, flush_interval=0), PendingChanges.factory, WireLog())
    live = registry.most_recent()
    agent = FakeAgent()
    live.agent = agent  # type: ignore[assignment]
    live.state.session_id = "s1"
    live.state.agent_status = AgentStatus.READY
    live.ledger = ledger()
    return registry, live, agent


def params(session_id: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"sessionId": session_id, "update": body}


def notices(live: LiveSession[PendingChanges], level: NoticeLevel) -> list[str]:
    return [
        n.text
        for i in live.state.items
        if isinstance(i, NoticeItem)
        for n in i.all  # notices of one kind in a row are kept together
        if n.level is level
    ]


def test_legacy_suggestions_are_not_offered_when_suggestions_are_switched_off() -> None:
    book = ledger(advertised=False, allowed=frozenset())
    outcome = book.receive_legacy({"promptSuggestions": {"suggestions": [{"text": "run the tests"}]}})
    assert outcome.offered is None and outcome.notices == ()
