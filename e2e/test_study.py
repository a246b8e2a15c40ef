"""A two-preset study over a replayed demo session, in a real browser: four participants, each in a browser
context of its own, agree, see their preset and select, edit, dismiss or type their own; the downloads hold
exactly what they did and the report's figures are those of the downloads; a fifth who does not agree
records nothing. The consent, the recording indicator and the report are scanned with axe-core (and shot)
in light and dark, on a desktop and a phone."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.support.browser import UI_TIMEOUT_MS, demo_server, sign_in
from tests.support.layouts import LAYOUTS, Layout, shoot
from tests.support.live import LiveServer
from tests.support.pages import chips, open_app, prompt
from tests.support.polling import wait_until
from tests.support.studies import study_server as study_server_of
from tests.support.workspace import fill_workspace
from webclient.domain.study_log import from_file
from webclient.domain.study_report import figures

HEADER = "study,participant,session,preset,list,event,rank,elapsed_ms,edit_distance"
STUDY = "chips-vs-list"


@pytest.fixture(scope="module")
def recording(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A demo-agent session of one prompt, as the protocol inspector downloads it, beside the workspace it
    ran in (its suggestions name files there, which the study's sessions then find in theirs)."""
    root = tmp_path_factory.mktemp("study-recording")
    with demo_server(fill_workspace(root / "shop"), root / "demo-state") as demo:
        context = browser.new_context()
        try:
            page = context.new_page()
            page.set_default_timeout(UI_TIMEOUT_MS)
            sign_in(context, demo)
            open_app(page, demo)
            prompt(page, "help")
            expect(chips(page).nth(1)).to_be_attached()
            href = page.get_by_test_id("inspector-download").get_attribute("href") or ""
            path = root / "session.jsonl"
            path.write_text(page.request.get(demo.base + href).text())
        finally:
            context.close()
    return path


@pytest.fixture(scope="module")
def study_server(recording: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    study = {
        "name": STUDY,
        "presets": ["chips", "list"],
        "replay": str(recording),
        "prompts": ["help"],
        "note": "Thank you for helping.",
    }
    with study_server_of(study, tmp_path_factory.mktemp("study"), recording.parent / "shop") as live:
        yield live


def visitor(browser: Browser, server: LiveServer, **options: Any) -> tuple[BrowserContext, Page]:
    context = browser.new_context(**options)
    sign_in(context, server)
    page = context.new_page()
    page.set_default_timeout(UI_TIMEOUT_MS)
    open_app(page, server)
    expect(page.get_by_test_id("study-banner")).to_have_attribute("data-state", "invite")
    return context, page


def join(page: Page) -> str:
    """Take part; the participant's id."""
    page.get_by_test_id("study-join").click()
    expect(page.get_by_test_id("study-banner")).to_have_attribute("data-state", "recording")
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
    return page.get_by_test_id("study-banner").get_attribute("data-participant") or ""


def take_part(page: Page, preset: str) -> None:
    join(page)
    prompt(page, "help")
    expect(page.get_by_test_id("suggestions")).to_have_attribute("data-preset", preset)
    expect(page.get_by_test_id("suggestions")).to_have_attribute("data-style", preset)
    expect(chips(page).first).to_be_visible()


def send(page: Page, index: int) -> list[tuple[str, int | None]]:
    """Send suggestion `index` as a person does (a collapsed one opens first); what that records."""
    button = chips(page).nth(index)
    done: list[tuple[str, int | None]] = []
    if button.get_attribute("data-truncated") == "true":
        button.click()
        expect(button).to_have_attribute("data-truncated", "false")
        done.append(("opened", index + 1))
    button.click()
    expect(page.get_by_test_id("suggestions")).to_be_hidden()
    return [*done, ("sent", index + 1)]


def downloaded(page: Page, server: LiveServer, kind: str) -> str:
    return page.request.get(f"{server.base}/studies/{STUDY}/events.{kind}").text()


def test_a_two_preset_study_records_exactly_what_four_consenting_participants_did(
    browser: Browser, study_server: LiveServer
) -> None:
    contexts: list[BrowserContext] = []
    did: dict[str, list[tuple[str, int | None]]] = {}
    try:
        for number, preset in enumerate(["chips", "list", "chips", "list"]):
            context, page = visitor(browser, study_server)
            contexts.append(context)
            take_part(page, preset)
            participant = page.get_by_test_id("study-banner").get_attribute("data-participant") or ""
            if number == 0:
                done = send(page, 1)
            elif number == 1:
                page.get_by_test_id("suggestion-edit").first.click()
                composer = page.get_by_test_id("composer")
                expect(composer).not_to_have_value("")
                composer.press("End")
                composer.type(" please")
                composer.press("Enter")
                done = [("edited", 1)]
            elif number == 2:
                page.get_by_test_id("composer").press("Escape")
                expect(page.get_by_test_id("suggestions")).to_be_hidden()
                done = [("dismissed", None)]
            else:
                composer = page.get_by_test_id("composer")
                composer.fill("my own question")
                composer.press("Enter")
                done = [("typed_own", None)]
            did[participant] = [("shown", None), *done]
            expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")

        # A fifth person does not take part: whatever they do records nothing.
        context, page = visitor(browser, study_server)
        contexts.append(context)
        page.get_by_test_id("study-decline").click()
        expect(page.get_by_test_id("study-banner")).to_have_count(0)
        stranger = page.evaluate("() => localStorage.getItem('webclient.studyParticipant')")
        here = page.url
        page.get_by_test_id("new-session").click()  # the replay's turn is played in a session of its own
        expect(page).not_to_have_url(here)
        expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "ready")
        prompt(page, "help")
        expect(page.get_by_test_id("study-banner")).to_have_count(0)
        send(page, 0)

        expected = sum(len(events) for events in did.values())
        wait_until(
            lambda: len(downloaded(page, study_server, "csv").splitlines()) == expected + 1,
            30,
            "every event to be written",
        )
        csv_text = downloaded(page, study_server, "csv")
        assert csv_text.splitlines()[0] == HEADER
        rows = list(csv.DictReader(io.StringIO(csv_text)))
        assert {row["participant"] for row in rows} == set(did) and stranger not in did
        for participant, events in did.items():
            mine = [r for r in rows if r["participant"] == participant]
            assert [(r["event"], int(r["rank"]) if r["rank"] else None) for r in mine] == events
            assert len({r["session"] for r in mine}) == 1 and len({r["list"] for r in mine}) == 1
            assert all(int(r["elapsed_ms"]) >= 0 for r in mine)
            assert all(r["study"] == STUDY for r in mine)
        presets = {r["participant"]: r["preset"] for r in rows}
        assert sorted(presets.values()) == ["chips", "chips", "list", "list"]
        edited = next(r for r in rows if r["event"] == "edited")
        assert edited["edit_distance"] == str(len(" please")) and edited["preset"] == "list"
        assert from_file(downloaded(page, study_server, "json"), STUDY) == from_file(csv_text, STUDY)

        report = contexts[0].new_page()
        report.goto(f"{study_server.base}/studies/{STUDY}")
        for found in figures(from_file(csv_text, STUDY), ["chips", "list"]):
            row = report.locator(f'[data-testid="study-row"][data-preset="{found.preset}"]')
            expect(row).to_have_attribute("data-lists", str(found.lists))
            expect(row).to_have_attribute("data-sent", str(found.sent.count))
            expect(row).to_have_attribute("data-edited", str(found.edited.count))
            expect(row).to_have_attribute("data-dismissed", str(found.dismissed.count))
            expect(row).to_have_attribute("data-sent-low", f"{found.sent.low:.4f}")
            assert json.loads(row.get_attribute("data-ranks") or "{}") == {
                str(k): v for k, v in found.ranks.items()
            }
        expect(report.get_by_test_id("study-comparison")).to_contain_text("includes zero")
        expect(report.get_by_test_id("study-plot")).to_have_count(3)
    finally:
        for context in contexts:
            context.close()


def rows_of(page: Page, server: LiveServer, participant: str) -> list[tuple[str, str]]:
    rows = csv.DictReader(io.StringIO(downloaded(page, server, "csv")))
    return [(r["event"], r["rank"]) for r in rows if r["participant"] == participant]


def recorded(page: Page, server: LiveServer, participant: str, want: list[tuple[str, str]]) -> None:
    """Wait until the participant's events are exactly `want` (event, rank)."""
    wait_until(lambda: rows_of(page, server, participant) == want, 30, f"{want} recorded")


def test_the_auto_send_countdown_and_more_are_recorded(browser: Browser, study_server: LiveServer) -> None:
    contexts: list[BrowserContext] = []
    try:
        # An auto-send that goes out, and one the participant stops.
        for cancel in (False, True):
            context, page = visitor(browser, study_server)
            contexts.append(context)
            participant = join(page)
            page.get_by_test_id("auto-send").check()
            prompt(page, "help")
            expect(page.get_by_test_id("auto-send-countdown")).to_be_visible(timeout=20_000)
            if cancel:
                page.get_by_test_id("auto-send-cancel").click()
                expect(page.get_by_test_id("auto-send-countdown")).to_be_hidden()
                want = [("shown", ""), ("auto_cancelled", "")]
            else:
                expect(page.locator('[data-testid="message"][data-role="user"]')).to_have_count(
                    2, timeout=20_000
                )
                want = [("shown", ""), ("auto_sent", "1")]
            recorded(page, study_server, participant, want)
        # On a phone, the list folds: "+N more" opens the rest.
        context, page = visitor(browser, study_server, **LAYOUTS[1].context_options())
        contexts.append(context)
        participant = join(page)
        prompt(page, "help")
        page.get_by_test_id("suggestions-more").click()
        want = [("shown", ""), ("more_opened", "")]
        recorded(page, study_server, participant, want)
    finally:
        for context in contexts:
            context.close()


@pytest.mark.parametrize("layout", LAYOUTS, ids=[layout.name for layout in LAYOUTS])
def test_the_consent_the_recording_indicator_and_the_report_are_accessible(
    browser: Browser, study_server: LiveServer, layout: Layout
) -> None:
    context, page = visitor(browser, study_server, **layout.context_options())
    try:
        expect(page.get_by_test_id("study-note")).to_have_text("Thank you for helping.")
        shoot(page, "study/consent", layout)
        page.get_by_test_id("study-join").click()
        expect(page.get_by_test_id("study-recording")).to_be_visible()
        prompt(page, "help")
        expect(chips(page).first).to_be_visible()
        shoot(page, "study/recording", layout)
        page.get_by_test_id("study-stop").click()
        expect(page.get_by_test_id("study-stopped")).to_be_visible()
        page.goto(f"{study_server.base}/studies")
        expect(page.get_by_test_id("study-entry")).to_have_count(1)
        shoot(page, "study/studies", layout)
        page.get_by_test_id("study-entry").click()
        expect(page.get_by_test_id("study-table")).to_be_visible()
        shoot(page, "study/report", layout)
    finally:
        context.close()


@pytest.mark.parametrize("key", ["Enter", "Space"])
def test_a_long_suggestion_opened_from_the_keyboard_is_recorded_as_opened(
    browser: Browser, study_server: LiveServer, key: str
) -> None:
    # A phone's width, where the suggestion with a file does not show whole, and the height of a tablet,
    # where it shows before the fold.
    tall_phone = LAYOUTS[1].context_options() | {"viewport": {"width": 390, "height": 1600}}
    context, page = visitor(browser, study_server, **tall_phone)
    try:
        participant = join(page)
        prompt(page, "help")
        collapsed = page.locator('[data-testid="suggestion"][data-truncated="true"]:visible').first
        expect(collapsed).to_be_visible()
        rank = str(int(collapsed.get_attribute("data-index") or "0") + 1)
        collapsed.focus()
        page.keyboard.press(key)
        expect(page.locator(f'[data-testid="suggestion"][data-index="{int(rank) - 1}"]')).to_have_attribute(
            "data-truncated", "false"
        )
        recorded(page, study_server, participant, [("shown", ""), ("opened", rank)])
    finally:
        context.close()
