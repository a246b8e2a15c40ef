"""The FastAPI application: a page per session, one WebSocket per tab, static files. Routes stay thin."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from fastapi import FastAPI, HTTPException, WebSocket
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from webclient.acp.wire_log import WireLog, session_jsonl
from webclient.domain.live_session import LiveSession
from webclient.domain.registry import SessionRegistry
from webclient.domain.state import SessionState
from webclient.settings import Settings
from webclient.views import assets, hidden_chars, render
from webclient.views.full_texts import full_text
from webclient.views.inspector import InspectorFeed
from webclient.views.live import LiveHub
from webclient.views.paths import STATIC_DIR
from webclient.web.error_pages import NO_SUCH_SESSION
from webclient.web.playground import add_routes as add_playground_routes
from webclient.web.preset_lab import add_routes as add_preset_lab_routes
from webclient.web.security import AccessPolicy, SecurityMiddleware
from webclient.web.study import add_routes as add_study_routes
from webclient.web.tab import serve_tab


def build_registry(settings: Settings) -> SessionRegistry[LiveHub]:
    """The sessions, each shown by a live hub with its protocol inspector."""
    # One log per agent: each numbers its own requests and names its own sessions.
    wire_logs = {spec.key: WireLog() for spec in settings.catalog.agents}

    def hub(state: SessionState) -> LiveHub:
        return LiveHub(state, settings.flush_interval, InspectorFeed(wire_logs[state.agent_key], state))

    return SessionRegistry(settings, hub, wire_logs)


def create_app(settings: Settings, port: int, registry: SessionRegistry[LiveHub] | None = None) -> FastAPI:
    """Build the app for a server listening on `port` (the real one, after binding)."""
    sessions = registry or build_registry(settings)
    # The address we listen on is always one of ours: any loopback one (127.0.0.2, ...) or, with
    # --allow-remote, any at all (check_host refused the rest at start).
    extra_hosts = (settings.host,)
    policy = AccessPolicy(port=port, token=settings.token, extra_hosts=extra_hosts)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        # Off the loop, while nobody waits yet (its first use would hold the loop in the first turn).
        prepared = asyncio.create_task(asyncio.to_thread(hidden_chars.prepare), name="prepare-hidden-chars")
        await sessions.start()
        try:
            yield
        finally:
            await prepared
            await sessions.shutdown()
            studies.close()

    app = FastAPI(lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.registry = sessions
    app.state.policy = policy

    # Before the mount, which would answer every path under /static/.
    @app.get(assets.URL_PREFIX + "{file_name}")
    async def bundle(file_name: str) -> Response:
        """The page's stylesheets or scripts as one file, cacheable for good (views/assets.py)."""
        found = assets.find(file_name)
        if found is None:
            raise HTTPException(status_code=404, detail="no such bundle")
        headers = {"cache-control": assets.CACHE_FOREVER}
        return Response(found.body, media_type=found.media_type, headers=headers)

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    def live_or_404(local_id: str) -> LiveSession[LiveHub]:
        live = sessions.session(local_id)
        if live is None:
            raise HTTPException(
                status_code=404, detail="no such session (it was closed, or the server restarted)"
            )
        return live

    @app.get("/")
    async def index() -> RedirectResponse:
        """A plain visit opens the most recent session."""
        return RedirectResponse(f"/s/{sessions.most_recent().local_id}", status_code=303)

    @app.get("/s/{local_id}", response_class=HTMLResponse)
    async def session_page(local_id: str) -> HTMLResponse:
        live = sessions.session(local_id)
        if live is None:  # a page, not JSON: a person followed an old link
            return HTMLResponse(
                NO_SUCH_SESSION.html(), status_code=404, headers={"cache-control": "no-store"}
            )
        html = render.page(
            live.state,
            ws_path=f"/ws/{local_id}",
            session_path=f"/s/{local_id}",
            suggestion_style=settings.suggestion_style,
            present=settings.present,
        )
        return HTMLResponse(html, headers={"cache-control": "no-store"})

    @app.head("/s/{local_id}")
    async def session_probe(local_id: str) -> Response:
        """A tab whose socket closed asks whether this server still serves it, without the page; the
        security middleware answers 401 first when the server no longer knows the tab's cookie."""
        found = sessions.session(local_id) is not None
        return Response(status_code=200 if found else 404, headers={"cache-control": "no-store"})

    @app.get("/s/{local_id}/inspector.jsonl")
    async def inspector_download(local_id: str, method: str = "") -> Response:
        """The protocol inspector's log of one session, one JSON-RPC message a line."""
        live = live_or_404(local_id)
        body = session_jsonl(sessions.route(live).wire_log, live.state.session_id, method[:200])
        headers = {
            "content-disposition": f'attachment; filename="webclient-{local_id}-protocol.jsonl"',
            "cache-control": "no-store",
        }
        return Response(body, media_type="application/x-ndjson", headers=headers)

    @app.get("/agent-text/{key}")
    async def agent_text(key: str) -> Response:
        """The whole text of an agent's item too big to show in full (a side of a change, a suggestion),
        from any open session, as a download."""
        for live in list(sessions.sessions.values()):
            text = full_text(live.state, key[:64])
            if text is not None:
                headers = {
                    "content-disposition": 'attachment; filename="webclient-agent-text.txt"',
                    "cache-control": "no-store",
                }
                return Response(text, media_type="text/plain; charset=utf-8", headers=headers)
        raise HTTPException(status_code=404, detail="no such text (it was replaced, or its session closed)")

    add_playground_routes(app, sessions, str(settings.cwd))
    studies = add_study_routes(app, settings, sessions)
    add_preset_lab_routes(app, settings)

    @app.get("/favicon.ico")
    async def favicon() -> Response:
        return Response(status_code=204)

    @app.websocket("/ws/{local_id}")
    async def websocket(socket: WebSocket, local_id: str) -> None:
        live = sessions.session(local_id)
        if live is None:
            await socket.close(code=1008)
            return
        await serve_tab(socket, sessions, live)

    app.add_middleware(SecurityMiddleware, policy=policy)
    return app
