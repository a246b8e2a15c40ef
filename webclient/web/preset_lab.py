"""`/presets`: the preset lab's page (views/preset_lab.py renders it), and its presets as a file."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, Response

from webclient.settings import Settings
from webclient.views import preset_lab, presets

NO_STORE = {"cache-control": "no-store"}


def add_routes(app: FastAPI, settings: Settings) -> None:
    catalog = presets.load(settings.presets.expanduser() if settings.presets else None)
    workspace = str(settings.cwd)

    def sides(request: Request) -> tuple[list[preset_lab.Side], dict[str, str]]:
        query = {key: value[:80] for key, value in request.query_params.items() if key[:2] in ("a_", "b_")}
        return [preset_lab.side(key, query, catalog, workspace) for key in preset_lab.SIDES], query

    @app.get("/presets", response_class=HTMLResponse)
    async def lab(request: Request) -> HTMLResponse:
        found, query = sides(request)
        return HTMLResponse(preset_lab.page(found, catalog, query), headers=NO_STORE)

    @app.get("/presets.toml")
    async def lab_file(request: Request) -> Response:
        found, _ = sides(request)
        body = preset_lab.presets_file([side.preset for side in found])
        headers = {"content-disposition": 'attachment; filename="presets.toml"', **NO_STORE}
        return Response(body, media_type="application/toml; charset=utf-8", headers=headers)
