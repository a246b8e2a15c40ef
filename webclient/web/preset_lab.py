"""`/presets`: the preset lab's page (views/preset_lab.py renders it), and its presets as a file.

The knobs come in the query (GET) or, with a pasted list, as a form post; a paste is read as the
playground reads it: bounded, decoded and rendered in a worker thread, one or two at a time, and nothing
of it kept on the server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, cast

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response
from starlette.requests import HTTPConnection

from webclient.acp.suggestion_input import InputError
from webclient.settings import Settings
from webclient.views import preset_lab, presets
from webclient.web.playground import MAX_PAGE_CHARS, RENDER_SLOTS, pick_of, read_form

NO_STORE = {"cache-control": "no-store"}
PREFIXES = tuple(f"{key}_" for key in preset_lab.SIDES)


@dataclass(frozen=True)
class Lab:
    """The preset lab of one server: the presets it starts from, the workspace its previews show
    (the server's --cwd), and `RENDER_SLOTS` renders at once."""

    catalog: dict[str, presets.Preset]
    workspace: str
    slots: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(RENDER_SLOTS))

    def sides(self, query: dict[str, str], shown: preset_lab.Listing) -> list[preset_lab.Side]:
        keys = preset_lab.SIDES if query.get("third") == "1" else preset_lab.SIDES[:2]
        return [preset_lab.side(key, query, self.catalog, self.workspace, shown) for key in keys]

    def render(self, query: dict[str, str], paste: str, pick: int, error: str | None) -> tuple[str, int]:
        """The lab for `query` over `paste` (in a worker thread), and its status: 422 when the paste
        could not be shown (the sample is shown instead, and the paste kept in its box)."""
        shown = None
        if error is None:
            try:
                shown = preset_lab.listing(paste, pick, self.workspace)
            except InputError as exc:
                error = str(exc)
        if shown is None:
            shown = preset_lab.listing("", 0, self.workspace)
        html = self.page(query, paste, shown, error)
        if len(html) > len(paste) + MAX_PAGE_CHARS:
            error = (
                f"the previews of that list would make a page of {len(html) // (1024 * 1024):,} MB, more "
                f"than the lab sends ({MAX_PAGE_CHARS // (1024 * 1024)} MB); paste fewer or shorter"
                " suggestions"
            )
            html = self.page(query, paste, preset_lab.listing("", 0, self.workspace), error)
        return html, 200 if error is None else 422

    def page(self, query: dict[str, str], paste: str, shown: preset_lab.Listing, error: str | None) -> str:
        sides = self.sides(query, shown)
        return preset_lab.page(sides, self.catalog, query, paste=paste, shown=shown, error=error)


def lab(settings: Settings) -> Lab:
    """The lab for these settings; raises a SettingsError when the presets file cannot be used."""
    catalog = presets.load(settings.presets.expanduser() if settings.presets else None)
    return Lab(catalog, str(settings.cwd))


def _lab(connection: HTTPConnection) -> Lab:
    return cast(Lab, connection.app.state.preset_lab)


Served = Annotated[Lab, Depends(_lab)]
router = APIRouter()


@router.get("/presets", response_class=HTMLResponse)
async def lab_page(request: Request, served: Served) -> HTMLResponse:
    query = knobs(dict(request.query_params))
    async with served.slots:
        html, _ = await asyncio.to_thread(served.render, query, "", 0, None)
    return HTMLResponse(html, headers=NO_STORE)


@router.post("/presets", response_class=HTMLResponse)
async def lab_paste(request: Request, served: Served) -> HTMLResponse:
    form = await read_form(request)
    if isinstance(form, str):
        query, paste, pick, error = {}, "", 0, form
    else:
        # The last value of a field wins: a button's (Add, Remove) comes after the form's own.
        query = knobs({key: values[-1] for key, values in form.items()})
        paste, pick, error = form.get("paste", [""])[0], pick_of(form), None
    async with served.slots:
        html, status = await asyncio.to_thread(served.render, query, paste, pick, error)
    return HTMLResponse(html, status_code=status, headers=NO_STORE)


@router.get("/presets.toml")
async def lab_file(request: Request, served: Served) -> Response:
    query = knobs(dict(request.query_params))
    found = served.sides(query, preset_lab.Listing(()))
    body = preset_lab.presets_file([side.preset for side in found])
    headers = {"content-disposition": 'attachment; filename="presets.toml"', **NO_STORE}
    return Response(body, media_type="application/toml; charset=utf-8", headers=headers)


def knobs(fields: Mapping[str, str]) -> dict[str, str]:
    """The knobs of the sides shown (the third only when it is added), each value cut short."""
    keys = PREFIXES if fields.get("third") == "1" else PREFIXES[:2]
    found = {key: value[:80] for key, value in fields.items() if key[:2] in keys}
    if fields.get("third") == "1":
        found["third"] = "1"
    return found
