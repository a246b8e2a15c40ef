"""A presentation study in the domain: assignment, who may record what, the events file and its
exchange format, and the report's figures (the Wilson interval against published values)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from webclient.domain.study import Study, StudyRefusal, assigned
from webclient.domain.study_log import COLUMNS, BadEvent, StudyEvent, StudyLog, from_file, to_csv, to_json
from webclient.domain.study_report import compare, figures, spread, wilson

ALICE, BOB = "participant-alice", "participant-bob"


def event(
    kind: str,
    elapsed: int,
    rank: int | None = None,
    *,
    preset: str = "chips",
    who: str = ALICE,
    gen: int = 1,
    distance: int | None = None,
) -> StudyEvent:
    return StudyEvent("s", who, "s1", preset, gen, kind, rank, elapsed, distance)


def test_alternating_assignment_takes_the_presets_in_turn() -> None:
    assert [assigned(("a", "b"), "alternating", 0, n) for n in range(5)] == ["a", "b", "a", "b", "a"]


def test_a_shuffle_is_the_same_for_a_seed_and_balanced_in_each_round() -> None:
    presets = ("a", "b", "c")
    first = [assigned(presets, "shuffled", 7, n) for n in range(12)]
    assert first == [assigned(presets, "shuffled", 7, n) for n in range(12)]
    for start in range(0, 12, 3):
        assert sorted(first[start : start + 3]) == ["a", "b", "c"]
    others = {tuple(assigned(presets, "shuffled", seed, n) for n in range(12)) for seed in range(6)}
    assert len(others) > 1  # the seed matters


def test_only_a_joined_recording_participant_records_and_only_in_its_own_session() -> None:
    study = Study("s", ("chips", "list"))
    raw = [{"list": 1, "event": "sent", "rank": 2, "elapsed_ms": 900, "preset": "list"}]
    with pytest.raises(StudyRefusal, match="has not agreed"):
        study.events(ALICE, "s1", raw)
    alice = study.join(ALICE)
    bob = study.join(BOB)
    assert (alice.preset, bob.preset) == ("chips", "list")
    with pytest.raises(StudyRefusal, match="not opened for the study"):
        study.events(ALICE, "s1", raw)
    study.claim(alice, "s1")
    [recorded] = study.events(ALICE, "s1", raw)
    # The preset is the one assigned, whatever the page says.
    assert recorded == StudyEvent("s", ALICE, "s1", "chips", 1, "sent", 2, 900, None)
    with pytest.raises(StudyRefusal, match="event 1: rank: a shown event has no rank"):
        study.events(ALICE, "s1", [{"list": 1, "event": "shown", "rank": 1, "elapsed_ms": 0}])
    study.stop(ALICE)
    with pytest.raises(StudyRefusal, match="stopped"):
        study.events(ALICE, "s1", raw)
    assert study.join(ALICE).preset == "chips"  # joining again keeps the preset
    with pytest.raises(StudyRefusal, match="not one this page makes"):
        study.join("x")


def test_the_log_keeps_events_by_study_and_its_downloads_read_back(tmp_path: Path) -> None:
    log = StudyLog(tmp_path / "studies")
    events = [event("shown", 0), event("edited", 3000, 1, distance=4), event("dismissed", 500, gen=2)]
    log.add(events)
    log.add([StudyEvent("other", BOB, "s2", "list", 1, "shown", None, 0, None)])
    assert log.events("s") == events
    assert log.studies() == [("other", 1, 1), ("s", 1, 3)]
    assert (tmp_path / "studies").stat().st_mode & 0o777 == 0o700
    assert log.path.stat().st_mode & 0o777 == 0o600
    csv_text = to_csv(events)
    assert (
        csv_text.splitlines()[0]
        == "study,participant,session,preset,list,event,rank,elapsed_ms,edit_distance"
    )
    assert csv_text.splitlines()[1] == f"s,{ALICE},s1,chips,1,shown,,0,"
    assert from_file(csv_text, "s") == events
    assert from_file(to_json(events), "s") == events


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("study,participant,session\n", "the first line must be study,participant"),
        (",".join(COLUMNS) + "\nother,p,s1,chips,1,shown,,0,\n", "line 2: the event is of study 'other'"),
        (",".join(COLUMNS) + "\ns,p,s1,chips,1,clicked,,0,\n", "line 2: event: one of shown"),
        (",".join(COLUMNS) + "\ns,p,s1,chips,x,shown,,0,\n", "line 2: list: a whole number"),
        ('{"columns": ["study"], "events": []}', "its columns must be"),
        ("{nope", "not JSON"),
    ],
)
def test_an_import_of_another_shape_or_study_is_refused_with_the_reason(text: str, reason: str) -> None:
    with pytest.raises(BadEvent, match=reason):
        from_file(text, "s")


@pytest.mark.parametrize(
    ("count", "total", "low", "high"),
    # Published values (e.g. statsmodels' proportion_confint(method="wilson"), Newcombe 1998 table I).
    [
        (0, 10, 0.0, 0.2775),
        (5, 10, 0.2366, 0.7634),
        (10, 10, 0.7225, 1.0),
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
    ],
)
def test_the_wilson_interval_matches_published_values(
    count: int, total: int, low: float, high: float
) -> None:
    share = wilson(count, total)
    assert share.low == pytest.approx(low, abs=1e-4) and share.high == pytest.approx(high, abs=1e-4)


def test_figures_count_lists_sends_edits_dismissals_ranks_and_first_actions() -> None:
    events = [
        event("shown", 0, gen=1),
        event("opened", 400, 2, gen=1),
        event("sent", 1000, 2, gen=1),
        event("shown", 0, gen=2),
        event("edited", 3000, 1, gen=2, distance=5),
        event("shown", 0, gen=3),
        event("dismissed", 200, gen=3),
        event("shown", 0, gen=4),
        event("auto_cancelled", 100, gen=4),
        event("typed_own", 5000, gen=4),
        event("shown", 0, preset="list", who=BOB),
        event("auto_sent", 3000, 1, preset="list", who=BOB),
    ]
    chips, listed = figures(events, ["chips", "list"])
    assert (chips.lists, chips.sent.count, chips.sent.total) == (4, 2, 4)
    assert (chips.edited.count, chips.edited.total, chips.dismissed.count) == (1, 2, 1)
    assert chips.ranks == {1: 1, 2: 1}
    assert chips.first_action == spread([200.0, 400.0, 3000.0, 5000.0])
    assert (chips.first_action.median, chips.first_action.q1, chips.first_action.q3) == (
        1700.0,
        350.0,
        3500.0,
    )
    assert (listed.lists, listed.sent.count, listed.ranks, listed.participants) == (1, 1, {1: 1}, 1)


def test_a_comparison_says_the_difference_and_whether_its_interval_excludes_zero() -> None:
    many: list[Any] = []
    for n in range(40):
        many.append(event("shown", 0, gen=n))
        many.append(event("sent", 500, 1, gen=n))
        many.append(event("shown", 0, gen=n, preset="list", who=BOB))
        if n < 8:
            many.append(event("sent", 500, 1, gen=n, preset="list", who=BOB))
    chips, listed = figures(many, ["chips", "list"])
    clear = compare(chips, listed)
    assert clear.difference == pytest.approx(0.8) and clear.excludes_zero
    assert "80 points more lists with chips than with list" in clear.sentence()
    assert "excludes zero" in clear.sentence()
    few = figures([*many[:4], event("shown", 0, gen=99, preset="list", who=BOB)], ["chips", "list"])
    close = compare(*few)
    assert not close.excludes_zero and "includes zero" in close.sentence()
    empty = compare(*figures([], ["chips", "list"]))
    assert "cannot be compared yet" in empty.sentence()


def test_a_study_run_again_keeps_each_participants_preset_and_goes_on_with_the_order(tmp_path: Path) -> None:
    log = StudyLog(tmp_path / "studies")
    log.add([event("shown", 0, preset="chips", who=ALICE), event("shown", 0, preset="list", who=BOB)])
    assert log.assignments("s") == {ALICE: "chips", BOB: "list"}
    study = Study("s", ("chips", "list"))
    study.resume(log.assignments("s"))
    assert study.join(BOB).preset == "list"
    assert study.join("participant-carol").preset == "chips"  # the third, as if the server had not stopped
    assert study.join("participant-dave").preset == "list"
