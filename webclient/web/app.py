"""The FastAPI application: one router per concern, wired here with the security middleware around all.

The routers (`session_pages`, `playground`, `study`, `preset_lab`, and the page's bundles below) are
module-level; what they share (the sessions, the settings, each concern's own service) is built once
here, kept on the app's state and handed to each route as a dependency (`served.py`). Routes stay thin.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from fastapi import APIRouter, FastAPI, HTTPException
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles

from webclient.acp.wire_log import WireLog
from webclient.domain.registry import SessionRegistry
from webclient.domain.state import SessionState
from webclient.settings import Settings
from webclient.views import assets, hidden_chars
from webclient.views.inspector import InspectorFeed
from webclient.views.live import LiveHub
from webclient.views.paths import STATIC_DIR
from webclient.web import playground, preset_lab, session_pages, study
from webclient.web.security import AccessPolicy, SecurityMiddleware

bundles = APIRouter()


@bundles.get(assets.URL_PREFIX + "{file_name}")
async def bundle(file_name: str) -> Response:
    """The page's stylesheets or scripts as one file, cacheable for good (views/assets.py)."""
    found = assets.find(file_name)
    if found is None:
        raise HTTPException(status_code=404, detail="no such bundle")
    headers = {"cache-control": assets.CACHE_FOREVER}
    return Response(found.body, media_type=found.media_type, headers=headers)


@bundles.get("/favicon.ico")
async def favicon() -> Response:
    return Response(status_code=204)


def build_registry(settings: Settings) -> SessionRegistry[LiveHub]:
    """The sessions, each shown by a live hub with its protocol inspector."""
    # One log per agent: each numbers its own requests and names its own sessions.
    wire_logs = {spec.key: WireLog() for spec in settings.catalog.agents}

    def hub(state: SessionState) -> LiveHub:
        return LiveHub(state, settings.flush_interval, InspectorFeed(wire_logs[state.agent_key], state))

    return SessionRegistry(settings, hub, wire_logs)


def create_app(settings: Settings, port: int, registry: SessionRegistry[LiveHub] | None = None) -> FastAPI:
    """Build the app for a server listening on `port` (the real one, after binding). Raises a
    SettingsError when the presets or the study it names cannot be used."""
    # The address we listen on is always one of ours: any loopback one (127.0.0.2, ...) or, with
    # --allow-remote, any at all (check_host refused the rest at start).
    policy = AccessPolicy(port=port, token=settings.token, extra_hosts=(settings.host,))
    app = FastAPI(lifespan=_lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.settings = settings
    app.state.registry = registry or build_registry(settings)
    app.state.policy = policy
    app.state.playground = playground.Playground(str(settings.cwd))
    app.state.studies = study.serve(settings)
    app.state.preset_lab = preset_lab.lab(settings)

    app.include_router(bundles)  # before the mount, which would answer every path under /static/
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    for router in (session_pages.router, playground.router, study.router, preset_lab.router):
        app.include_router(router)
    app.add_middleware(SecurityMiddleware, policy=policy)
    return app


@contextlib.asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    sessions: SessionRegistry[LiveHub] = app.state.registry
    # Off the loop, while nobody waits yet (its first use would hold the loop in the first turn).
    prepared = asyncio.create_task(asyncio.to_thread(hidden_chars.prepare), name="prepare-hidden-chars")
    await sessions.start()
    try:
        yield
    finally:
        await prepared
        await sessions.shutdown()
        app.state.studies.close()
