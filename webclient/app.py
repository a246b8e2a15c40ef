"""The FastAPI application: a page per session, one WebSocket per tab, static files. Routes stay thin."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from urllib.parse import parse_qs

from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from markupsafe import Markup

from webclient import render
from webclient.actions import (
    BadAction,
    BrowserAction,
    CancelAction,
    EditSuggestionAction,
    PromptAction,
    RestartAction,
    SuggestionAction,
    parse_action,
)
from webclient.live import Subscriber
from webclient.live_session import LiveSession
from webclient.models import Notice, NoticeLevel
from webclient.paths import STATIC_DIR
from webclient.runtime import Runtime
from webclient.security import AccessPolicy, SecurityMiddleware
from webclient.session import NoticeItem
from webclient.settings import Settings
from webclient.suggestions import attachment_wire

MAX_FORM_BYTES = 4096


def create_app(settings: Settings, port: int, runtime: Runtime | None = None) -> FastAPI:
    """Build the app for a server listening on `port` (the real one, after binding)."""
    runtime = runtime or Runtime(settings)
    extra_hosts = () if settings.allow_remote is False else (settings.host,)
    policy = AccessPolicy(port=port, token=settings.token, extra_hosts=extra_hosts)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await runtime.start()
        try:
            yield
        finally:
            await runtime.shutdown()

    app = FastAPI(lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.runtime = runtime
    app.state.policy = policy
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    def page(live: LiveSession) -> HTMLResponse:
        html = render.page(live.state, ws_path=f"/ws/{live.local_id}", session_path=f"/s/{live.local_id}")
        return HTMLResponse(html, headers={"cache-control": "no-store"})

    def live_or_404(local_id: str) -> LiveSession:
        live = runtime.session(local_id)
        if live is None:
            raise HTTPException(
                status_code=404, detail="no such session (it was closed, or the server restarted)"
            )
        return live

    @app.get("/", response_class=HTMLResponse)
    async def index() -> HTMLResponse:
        return page(runtime.current)

    @app.get("/s/{local_id}", response_class=HTMLResponse)
    async def session_page(local_id: str) -> HTMLResponse:
        return page(live_or_404(local_id))

    @app.post("/sessions")
    async def new_session() -> Response:
        created = runtime.new_session()
        if isinstance(created, str):
            raise HTTPException(status_code=409, detail=created)
        return _see_other(f"/s/{created.local_id}")

    @app.post("/sessions/open")
    async def open_session(request: Request) -> Response:
        form = await _form(request)
        session_id = form.get("session_id", "")
        if not session_id or len(session_id) > 500:
            raise HTTPException(status_code=400, detail="which session? (session_id is missing)")
        error = await runtime.load_session(session_id, resume=form.get("mode") == "resume")
        return _see_other(f"/s/{runtime.current_id}" if error is None else "/")

    @app.post("/s/{local_id}/close")
    async def close_session(local_id: str) -> Response:
        live_or_404(local_id)
        await runtime.close_session(local_id)
        return _see_other(f"/s/{runtime.current_id}")

    @app.get("/favicon.ico")
    async def favicon() -> Response:
        return Response(status_code=204)

    @app.websocket("/ws")
    async def websocket_current(socket: WebSocket) -> None:
        await _serve_tab(socket, runtime, runtime.current)

    @app.websocket("/ws/{local_id}")
    async def websocket(socket: WebSocket, local_id: str) -> None:
        live = runtime.session(local_id)
        if live is None:
            await socket.close(code=1008)
            return
        await _serve_tab(socket, runtime, live)

    app.add_middleware(SecurityMiddleware, policy=policy)
    return app


def _see_other(path: str) -> Response:
    return RedirectResponse(path, status_code=303)


async def _form(request: Request) -> dict[str, str]:
    """A small url-encoded form (our own buttons post one or two fields)."""
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        raise HTTPException(status_code=413, detail="form too large")
    fields = parse_qs(body.decode("utf-8", errors="replace"), max_num_fields=10)
    return {key: values[0] for key, values in fields.items()}


async def _serve_tab(socket: WebSocket, runtime: Runtime, live: LiveSession) -> None:
    await socket.accept()
    sub = live.hub.subscribe()
    sender = asyncio.create_task(_send_frames(socket, sub), name="ws-sender")
    try:
        await _receive_actions(socket, runtime, live, sub)
    except WebSocketDisconnect:
        pass
    finally:
        live.hub.unsubscribe(sub)
        sender.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await sender


async def _send_frames(socket: WebSocket, sub: Subscriber) -> None:
    while True:
        frame = await sub.frames.get()
        if frame is None:  # the hub dropped this tab (too slow) or is shutting down
            await socket.close(code=1012)
            return
        await socket.send_text(frame)


async def _receive_actions(socket: WebSocket, runtime: Runtime, live: LiveSession, sub: Subscriber) -> None:
    while True:
        message = await socket.receive()
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
        raw = message.get("text")
        if raw is None:  # a binary frame: receive_text() would raise KeyError and drop the tab
            _tell(sub, live, "the browser sent a binary message; this server only understands text")
            continue
        try:
            action = parse_action(raw)
        except BadAction as exc:
            _tell(sub, live, str(exc))
            continue
        error = await _dispatch(runtime, live, action, sub)
        if error:
            _tell(sub, live, error)


async def _dispatch(
    runtime: Runtime, live: LiveSession, action: BrowserAction, sub: Subscriber
) -> str | None:
    if isinstance(action, PromptAction):
        return live.submit_composed(action.text, action.attachments)
    if isinstance(action, SuggestionAction):
        return live.send_suggestion(action.generation, action.index, auto_sent=action.auto)
    if isinstance(action, EditSuggestionAction):
        chosen = live.find_suggestion(action.generation, action.index)
        if isinstance(chosen, str):
            return chosen
        # Only this tab's composer takes the suggestion's attachments.
        sub.push(render.composer_attachments(list(chosen.attachments), attachment_wire(chosen)))
        return None
    if isinstance(action, CancelAction):
        return await live.cancel()
    if isinstance(action, RestartAction):
        await runtime.restart()
        return None
    return runtime.choose_auth(action.method_id)


def _tell(sub: Subscriber, live: LiveSession, text: str) -> None:
    """Show an error to the one tab that caused it, without adding it to the shared transcript."""
    item = NoticeItem(notice=Notice(level=NoticeLevel.WARNING, text=text))
    html = render.item(live.state, item)
    sub.push(render.append_items(str(Markup(html))))
