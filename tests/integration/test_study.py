"""A presentation study on a server (`--study`): the banner, consent, assignment, recording only for a
consenting participant's own session, the downloads, the report and the import; no study, no recording."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.inprocess import InProcessApp, StartApp
from webclient.views import presentation
from webclient.web.security import KEY_HEADER

STUDY = {"name": "chips-vs-list", "presets": ["chips", "list"]}
HEADER = "study,participant,session,preset,list,event,rank,elapsed_ms,edit_distance"
ALICE, BOB = "participant-alice-1", "participant-bob-22"


def post(app: InProcessApp, path: str, body: Any, raw: bool = False) -> Any:
    headers = {"cookie": app.cookie, "origin": app.origin, KEY_HEADER: app.key}
    content = body if raw else json.dumps(body)
    return app.client.post(path, headers=headers, content=content, follow_redirects=False)


def running(start_app: StartApp, tmp_path: Path, study: dict[str, Any] = STUDY) -> InProcessApp:
    path = tmp_path / "study.json"
    path.write_text(json.dumps(study))
    return start_app(study=path, state_dir=tmp_path / "state")


def test_a_consenting_participant_records_in_its_own_session_and_no_one_else_does(
    start_app: StartApp, tmp_path: Path
) -> None:
    app = running(start_app, tmp_path)
    invite = app.get("/study/banner", params={"session": "s1"})
    assert invite.status_code == 200 and 'data-state="invite"' in invite.text
    assert str(tmp_path / "state" / "studies" / "studies.sqlite3") in invite.text
    shown = [{"list": 1, "event": "shown", "rank": None, "elapsed_ms": 0}]
    refused = post(app, "/study/events", {"participant": ALICE, "session": "s1", "events": shown})
    assert refused.status_code == 400 and "has not agreed" in refused.json()["error"]

    alice = post(app, "/study/join", {"participant": ALICE, "session": "s1"}).json()["href"]
    bob = post(app, "/study/join", {"participant": BOB, "session": "s1"}).json()["href"]
    assert alice != bob and "/s/s1" not in (alice, bob)
    registry = app.client.app.state.registry  # type: ignore[attr-defined]
    presets = [presentation.of(registry.session(href.rsplit("/", 1)[1]).state) for href in (alice, bob)]
    assert [p.name for p in presets if p] == ["chips", "list"]
    alice_id = alice.rsplit("/", 1)[1]
    banner = app.get("/study/banner", params={"session": alice_id, "participant": ALICE}).text
    assert 'data-state="recording"' in banner and f'data-participant="{ALICE}"' in banner
    assert 'data-testid="study-stop"' in banner
    # Another page on Alice's session is invited to take part; it does not record for her.
    other = app.get("/study/banner", params={"session": alice_id, "participant": BOB}).text
    assert 'data-state="invite"' in other and ALICE not in other

    # Bob's page cannot record into Alice's session; Alice's page can, and its preset is the study's.
    assert (
        post(app, "/study/events", {"participant": BOB, "session": alice_id, "events": shown}).status_code
        == 400
    )
    events = [*shown, {"list": 1, "event": "sent", "rank": 2, "elapsed_ms": 1500, "preset": "list"}]
    answer = post(app, "/study/events", {"participant": ALICE, "session": alice_id, "events": events})
    assert answer.json() == {"recorded": 2}
    assert post(app, "/study/stop", {"participant": ALICE}).json() == {"stopped": True}
    assert (
        post(app, "/study/events", {"participant": ALICE, "session": alice_id, "events": shown}).status_code
        == 400
    )
    stopped = app.get("/study/banner", params={"session": alice_id, "participant": ALICE}).text
    assert 'data-state="stopped"' in stopped

    csv_text = app.get("/studies/chips-vs-list/events.csv").text
    assert csv_text.splitlines() == [
        HEADER,
        f"chips-vs-list,{ALICE},{alice_id},chips,1,shown,,0,",
        f"chips-vs-list,{ALICE},{alice_id},chips,1,sent,2,1500,",
    ]
    downloaded = app.get("/studies/chips-vs-list/events.json").json()
    assert downloaded["columns"] == HEADER.split(",") and len(downloaded["events"]) == 2

    report = app.get("/studies/chips-vs-list").text
    assert 'data-preset="chips" data-lists="1" data-sent="1"' in report
    assert 'data-preset="list" data-lists="0" data-sent="0"' in report
    assert "cannot be compared yet" in report and 'data-testid="study-csv"' in report
    assert "<script" not in report.split("</head>", 1)[1]  # the plots are plain SVG
    assert 'href="/studies/chips-vs-list"' in app.get("/studies").text


def test_an_import_adds_another_computers_events_and_refuses_another_study_or_header(
    start_app: StartApp, tmp_path: Path
) -> None:
    app = running(start_app, tmp_path)
    other = (
        f"{HEADER}\nchips-vs-list,{BOB},s9,list,3,shown,,0,\nchips-vs-list,{BOB},s9,list,3,dismissed,,700,\n"
    )
    assert post(app, "/studies/chips-vs-list/import", other, raw=True).json() == {"imported": 2}
    wrong_study = other.replace("chips-vs-list,", "another,")
    refused = post(app, "/studies/chips-vs-list/import", wrong_study, raw=True)
    assert refused.status_code == 400 and "of study 'another'" in refused.json()["error"]
    wrong_header = "study,who,session\n"
    refused = post(app, "/studies/chips-vs-list/import", wrong_header, raw=True)
    assert "the first line must be" in refused.json()["error"]
    report = app.get("/studies/chips-vs-list").text
    assert 'data-preset="list" data-lists="1" data-sent="0"' in report and 'data-dismissed="1"' in report


def test_without_a_study_nothing_records_and_no_file_is_made(start_app: StartApp, tmp_path: Path) -> None:
    app = start_app(state_dir=tmp_path / "state")
    assert app.get("/study/banner", params={"session": "s1"}).status_code == 204
    assert post(app, "/study/join", {"participant": ALICE}).status_code == 404
    assert (
        post(app, "/study/events", {"participant": ALICE, "session": "s1", "events": []}).status_code == 404
    )
    assert 'data-testid="studies-empty"' in app.get("/studies").text
    assert not (tmp_path / "state" / "studies").exists()


def test_a_state_changing_study_request_from_another_origin_is_refused(
    start_app: StartApp, tmp_path: Path
) -> None:
    app = running(start_app, tmp_path)
    answer = app.client.post(
        "/study/join",
        headers={"cookie": app.cookie, "origin": "http://evil.example", KEY_HEADER: app.key},
        content=json.dumps({"participant": ALICE}),
    )
    assert answer.status_code == 403
    # Our origin and the cookie, without the page's key: refused too.
    answer = app.client.post(
        "/study/join",
        headers={"cookie": app.cookie, "origin": app.origin},
        content=json.dumps({"participant": ALICE}),
    )
    assert answer.status_code == 403
