"""The FastAPI application: one page, one WebSocket per tab, static files. Routes stay thin."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from fastapi import FastAPI, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse, Response
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
from webclient.models import Notice, NoticeLevel
from webclient.paths import STATIC_DIR
from webclient.runtime import Runtime
from webclient.security import AccessPolicy, SecurityMiddleware
from webclient.session import NoticeItem
from webclient.settings import Settings
from webclient.suggestions import attachment_wire

WS_PATH = "/ws"


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

    @app.get("/", response_class=HTMLResponse)
    async def index() -> HTMLResponse:
        html = render.page(runtime.state, ws_path=WS_PATH)
        return HTMLResponse(html, headers={"cache-control": "no-store"})

    @app.get("/favicon.ico")
    async def favicon() -> Response:
        return Response(status_code=204)

    @app.websocket(WS_PATH)
    async def websocket(socket: WebSocket) -> None:
        await socket.accept()
        sub = runtime.hub.subscribe()
        sender = asyncio.create_task(_send_frames(socket, sub), name="ws-sender")
        try:
            await _receive_actions(socket, runtime, sub)
        except WebSocketDisconnect:
            pass
        finally:
            runtime.hub.unsubscribe(sub)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender

    app.add_middleware(SecurityMiddleware, policy=policy)
    return app


async def _send_frames(socket: WebSocket, sub: Subscriber) -> None:
    while True:
        frame = await sub.frames.get()
        if frame is None:  # the hub dropped this tab (too slow) or is shutting down
            await socket.close(code=1012)
            return
        await socket.send_text(frame)


async def _receive_actions(socket: WebSocket, runtime: Runtime, sub: Subscriber) -> None:
    while True:
        message = await socket.receive()
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
        raw = message.get("text")
        if raw is None:  # a binary frame: receive_text() would raise KeyError and drop the tab
            _tell(sub, runtime, "the browser sent a binary message; this server only understands text")
            continue
        try:
            action = parse_action(raw)
        except BadAction as exc:
            _tell(sub, runtime, str(exc))
            continue
        error = await _dispatch(runtime, action, sub)
        if error:
            _tell(sub, runtime, error)


async def _dispatch(runtime: Runtime, action: BrowserAction, sub: Subscriber) -> str | None:
    if isinstance(action, PromptAction):
        return runtime.submit_composed(action.text, action.attachments)
    if isinstance(action, SuggestionAction):
        return runtime.send_suggestion(action.generation, action.index, auto_sent=action.auto)
    if isinstance(action, EditSuggestionAction):
        chosen = runtime.find_suggestion(action.generation, action.index)
        if isinstance(chosen, str):
            return chosen
        # Only this tab's composer takes the suggestion's attachments.
        sub.push(render.composer_attachments(list(chosen.attachments), attachment_wire(chosen)))
        return None
    if isinstance(action, CancelAction):
        return await runtime.cancel()
    if isinstance(action, RestartAction):
        await runtime.restart()
        return None
    return runtime.choose_auth(action.method_id)


def _tell(sub: Subscriber, runtime: Runtime, text: str) -> None:
    """Show an error to the one tab that caused it, without adding it to the shared transcript."""
    item = NoticeItem(notice=Notice(level=NoticeLevel.WARNING, text=text))
    html = render.item(runtime.state, item)
    sub.push(render.append_items(str(Markup(html))))
