"""A presentation study on this server (`--study PATH`), and the reports of the studies kept here.

While a study runs, each session page asks for its banner (`GET /study/banner`): the invitation, with what
is recorded and where; "Take part" (`POST /study/join`, with the id the page made for its participant)
assigns a preset and opens a session of the participant's own, whose suggestions render with that preset;
its page then records (`POST /study/events`) until "Stop recording" (`POST /study/stop`). Nothing is
recorded for any other page, and nothing of it reaches the agent. The reports (`/studies`) read the events
file, and take the downloads of other computers (`POST /studies/NAME/import`).

State-changing requests pass the security middleware's Origin and cookie checks as every other does.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, cast

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.requests import HTTPConnection

from webclient.domain.study import Study
from webclient.domain.study_log import FILE_NAME, FOLDER_NAME, BadEvent, StudyLog, from_file, to_csv, to_json
from webclient.errors import Refused
from webclient.settings import Settings
from webclient.views import presentation, presets, study_config, study_pages
from webclient.views.presets import NAME_PATTERN
from webclient.views.study_config import StudyPlan
from webclient.web.served import Sessions

NO_STORE = {"cache-control": "no-store"}
MAX_BODY = 64 * 1024  # a page's batch of events
MAX_IMPORT = 32 * 1024 * 1024  # an imported download


@dataclass
class StudyServer:
    """What this server knows of studies: the one it runs (if any) and the events file (if any)."""

    folder: Path
    plan: StudyPlan | None = None
    study: Study | None = None
    _log: StudyLog | None = None

    def log(self, create: bool) -> StudyLog | None:
        """The events file; without a running study it is only opened if it exists (nothing is created)."""
        if self._log is None and (create or (self.folder / FILE_NAME).exists()):
            self._log = StudyLog(self.folder)
        return self._log

    def close(self) -> None:
        if self._log is not None:
            self._log.close()


def load_plan(settings: Settings) -> StudyPlan | None:
    """The study `settings` names, validated (raises a SettingsError that names the field and line)."""
    if settings.study is None:
        return None
    catalog = presets.load(settings.presets.expanduser() if settings.presets else None)
    return study_config.load(settings.study.expanduser(), catalog)


def serve(settings: Settings) -> StudyServer:
    """The studies of a server with these settings, and the one it runs (its events file opened and
    its assignments resumed); raises a SettingsError that names the field and line of a bad study."""
    plan = load_plan(settings)
    server = StudyServer(settings.state_dir / FOLDER_NAME, plan)
    if plan is not None:
        server.study = Study(plan.name, plan.preset_names, plan.assignment, plan.seed)
        log = server.log(create=True)
        if log is not None:  # a study run again goes on where it was
            server.study.resume(log.assignments(plan.name))
    return server


def _server(connection: HTTPConnection) -> StudyServer:
    return cast(StudyServer, connection.app.state.studies)


Served = Annotated[StudyServer, Depends(_server)]
router = APIRouter()


@router.get("/study/banner", response_class=HTMLResponse)
async def study_banner(server: Served, session: str = "", participant: str = "") -> Response:
    """The banner for the page of `session`, made for the page's `participant`: recording (or
    stopped) on a session the study opened for them, an invitation anywhere else."""
    study = server.study
    if study is None or server.plan is None:
        return Response(status_code=204, headers=NO_STORE)
    owner = study.owner(session[:64])
    if owner is not None and owner.id != participant:
        owner = None
    state: study_pages.BannerState = "invite"
    if owner is not None:
        state = "recording" if owner.recording else "stopped"
    where = str(server.folder / FILE_NAME)
    return HTMLResponse(study_pages.banner(server.plan, state, owner, where), headers=NO_STORE)


@router.post("/study/join")
async def study_join(request: Request, server: Served, sessions: Sessions) -> JSONResponse:
    study, body = _running(server), await _json(request, MAX_BODY)
    try:
        participant = study.join(str(body.get("participant", "")))
        current = str(body.get("session", ""))[:64]
        if current in participant.sessions and sessions.session(current) is not None:
            return JSONResponse({"href": f"/s/{current}"}, headers=NO_STORE)
        live = sessions.new_session()
    except Refused as exc:  # the study's refusals and the session's (no agent to start)
        return _refused(str(exc))
    preset = server.plan.preset(participant.preset) if server.plan else None
    presentation.assign(live.state, preset)
    study.claim(participant, live.local_id)
    return JSONResponse({"href": f"/s/{live.local_id}"}, headers=NO_STORE)


@router.post("/study/stop")
async def study_stop(request: Request, server: Served) -> JSONResponse:
    study, body = _running(server), await _json(request, MAX_BODY)
    study.stop(str(body.get("participant", "")))
    return JSONResponse({"stopped": True}, headers=NO_STORE)


@router.post("/study/events")
async def study_events(request: Request, server: Served) -> JSONResponse:
    study, body = _running(server), await _json(request, MAX_BODY)
    log = server.log(create=True)
    try:
        found = study.events(
            str(body.get("participant", "")), str(body.get("session", "")), body.get("events")
        )
    except Refused as exc:
        return _refused(str(exc))
    if log is not None and found:
        await asyncio.to_thread(log.add, found)
    return JSONResponse({"recorded": len(found)}, headers=NO_STORE)


@router.get("/studies", response_class=HTMLResponse)
async def studies(server: Served) -> HTMLResponse:
    log = server.log(create=False)
    found = await asyncio.to_thread(log.studies) if log else []
    running = server.plan.name if server.plan else None
    if running and running not in [name for name, _, _ in found]:
        found = [(running, 0, 0), *found]
    return HTMLResponse(study_pages.studies_page(found, running), headers=NO_STORE)


@router.get("/studies/{name}", response_class=HTMLResponse)
async def study_report(name: str, server: Served) -> HTMLResponse:
    running = server.plan is not None and server.plan.name == name
    events = await _events(server, name, must_exist=not running)
    names = server.plan.preset_names if running and server.plan else ()
    found = study_pages.report(name, events, names, running)
    return HTMLResponse(study_pages.report_page(found), headers=NO_STORE)


@router.get("/studies/{name}/events.csv")
async def study_csv(name: str, server: Served) -> Response:
    events = await _events(server, name, must_exist=False)
    return Response(to_csv(events), media_type="text/csv; charset=utf-8", headers=_download(name, "csv"))


@router.get("/studies/{name}/events.json")
async def study_json(name: str, server: Served) -> Response:
    events = await _events(server, name, must_exist=False)
    return Response(to_json(events), media_type="application/json", headers=_download(name, "json"))


@router.post("/studies/{name}/import")
async def study_import(name: str, request: Request, server: Served) -> JSONResponse:
    _valid_name(name)
    body = await _body(request, MAX_IMPORT)
    try:
        events = from_file(body.decode("utf-8"), name)
    except UnicodeDecodeError:
        return _refused("the file is not text (UTF-8)")
    except BadEvent as exc:
        return _refused(f"nothing was added: {exc}")
    log = server.log(create=True)
    assert log is not None
    await asyncio.to_thread(log.add, events)
    return JSONResponse({"imported": len(events)}, headers=NO_STORE)


def _running(server: StudyServer) -> Study:
    if server.study is None:
        raise HTTPException(status_code=404, detail="no study is running on this server")
    return server.study


def _valid_name(name: str) -> None:
    import re

    if not re.match(NAME_PATTERN, name):
        raise HTTPException(status_code=404, detail="no such study")


async def _events(server: StudyServer, name: str, *, must_exist: bool) -> list[Any]:
    _valid_name(name)
    log = server.log(create=False)
    events = await asyncio.to_thread(log.events, name) if log else []
    if must_exist and not events:
        raise HTTPException(status_code=404, detail="no such study on this computer")
    return events


def _download(name: str, kind: str) -> dict[str, str]:
    return {"content-disposition": f'attachment; filename="study-{name}.{kind}"', **NO_STORE}


def _refused(reason: str) -> JSONResponse:
    return JSONResponse({"error": reason}, status_code=400, headers=NO_STORE)


async def _body(request: Request, limit: int) -> bytes:
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise HTTPException(status_code=413, detail="too large")
    return body


async def _json(request: Request, limit: int) -> dict[str, Any]:
    try:
        value = json.loads(await _body(request, limit))
    except ValueError:
        raise HTTPException(status_code=400, detail="not JSON") from None
    if not isinstance(value, dict):
        raise HTTPException(status_code=400, detail="not a JSON object")
    return value
