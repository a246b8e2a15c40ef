"""The FastAPI application: a page per session, one WebSocket per tab, static files. Routes stay thin."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from fastapi import FastAPI, HTTPException, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from markupsafe import Markup

from webclient.acp.models import Notice, NoticeLevel
from webclient.acp.translate import translate_content
from webclient.acp.wire_log import WireLog, session_jsonl
from webclient.domain.live_session import LiveSession
from webclient.domain.picker import AttachmentRejected, file_block, find_files, image_block
from webclient.domain.runtime import Runtime
from webclient.domain.state import NoticeItem, SessionState
from webclient.domain.suggestions import attachment_wire
from webclient.settings import Settings
from webclient.views import render
from webclient.views.inspector import InspectorFeed
from webclient.views.live import LiveHub, Subscriber
from webclient.views.paths import STATIC_DIR
from webclient.web.actions import (
    AttachFileAction,
    AttachImageAction,
    BadAction,
    BrowserAction,
    CancelAction,
    CloseSessionAction,
    EditSuggestionAction,
    FindFilesAction,
    InspectorAction,
    NewSessionAction,
    OpenSessionAction,
    PermissionAction,
    PromptAction,
    RestartAction,
    SetConfigOptionAction,
    SetModeAction,
    SuggestionAction,
    parse_action,
)
from webclient.web.error_pages import NO_SUCH_SESSION
from webclient.web.security import AccessPolicy, SecurityMiddleware


def build_runtime(settings: Settings) -> Runtime[LiveHub]:
    """The runtime whose sessions are shown by live hubs, each with its protocol inspector."""
    wire_log = WireLog()

    def hub(state: SessionState) -> LiveHub:
        return LiveHub(state, settings.flush_interval, InspectorFeed(wire_log, state))

    return Runtime(settings, hub, wire_log)


def create_app(settings: Settings, port: int, runtime: Runtime[LiveHub] | None = None) -> FastAPI:
    """Build the app for a server listening on `port` (the real one, after binding)."""
    runtime = runtime or build_runtime(settings)
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

    def page(live: LiveSession[LiveHub]) -> HTMLResponse:
        html = render.page(live.state, ws_path=f"/ws/{live.local_id}", session_path=f"/s/{live.local_id}")
        return HTMLResponse(html, headers={"cache-control": "no-store"})

    def live_or_404(local_id: str) -> LiveSession[LiveHub]:
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
        live = runtime.session(local_id)
        if live is None:  # a page, not JSON: a person followed an old link
            return HTMLResponse(
                NO_SUCH_SESSION.html(), status_code=404, headers={"cache-control": "no-store"}
            )
        return page(live)

    @app.get("/s/{local_id}/inspector.jsonl")
    async def inspector_download(local_id: str, method: str = "") -> Response:
        """The protocol inspector's log of one session, one JSON-RPC message a line."""
        live = live_or_404(local_id)
        body = session_jsonl(runtime.inspector, live.state.session_id, method[:200])
        headers = {
            "content-disposition": f'attachment; filename="webclient-{local_id}-protocol.jsonl"',
            "cache-control": "no-store",
        }
        return Response(body, media_type="application/x-ndjson", headers=headers)

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


async def _serve_tab(socket: WebSocket, runtime: Runtime[LiveHub], live: LiveSession[LiveHub]) -> None:
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


async def _receive_actions(
    socket: WebSocket, runtime: Runtime[LiveHub], live: LiveSession[LiveHub], sub: Subscriber
) -> None:
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
    runtime: Runtime[LiveHub], live: LiveSession[LiveHub], action: BrowserAction, sub: Subscriber
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
    if isinstance(action, PermissionAction):
        return live.answer_permission(action.request_id, action.option_id)
    if isinstance(action, SetModeAction):
        return await live.set_mode(action.mode_id)
    if isinstance(action, SetConfigOptionAction):
        assert action.value is not None  # the action's validator made it a bool or a value id
        return await live.set_config_option(action.config_id, action.value)
    if isinstance(action, CancelAction):
        return await live.cancel()
    if isinstance(action, RestartAction):
        await runtime.restart()
        return None
    if isinstance(action, InspectorAction):
        live.hub.watch_inspector(sub, action.open)
        return None
    if isinstance(action, FindFilesAction):
        found = await asyncio.to_thread(find_files, runtime.settings.cwd, action.query)
        sub.push(render.file_picker(found, action.query))
        return None
    if isinstance(action, AttachFileAction | AttachImageAction):
        return _attach(runtime, live, action, sub)
    if isinstance(action, NewSessionAction):
        created = runtime.new_session()
        if isinstance(created, str):
            return created
        sub.push(render.navigate(f"/s/{created.local_id}"))
        return None
    if isinstance(action, OpenSessionAction):
        error = await runtime.load_session(action.session_id, resume=action.mode == "resume")
        if error is None:
            sub.push(render.navigate(f"/s/{runtime.current_id}"))
        return error
    if isinstance(action, CloseSessionAction):
        closing = runtime.session(action.local_id)
        if closing is None:
            return "no such session"
        # Tabs on the closing session move to whichever session stays current.
        closing.hub.broadcast(render.navigate("/"))
        return await runtime.close_session(action.local_id)
    return runtime.choose_auth(action.method_id)


def _attach(
    runtime: Runtime[LiveHub],
    live: LiveSession[LiveHub],
    action: AttachFileAction | AttachImageAction,
    sub: Subscriber,
) -> str | None:
    """Add a file link or an image to this tab's composer, as a pill it sends with the prompt."""
    try:
        if isinstance(action, AttachFileAction):
            block = file_block(runtime.settings.cwd, action.path)
        elif not live.prompt_capabilities.get("image"):
            return "this agent does not accept images in prompts"
        else:
            block = image_block(action.mime_type, action.data)
    except AttachmentRejected as exc:
        return str(exc)
    sub.push(render.composer_pill(translate_content(block), block))
    return None


def _tell(sub: Subscriber, live: LiveSession[LiveHub], text: str) -> None:
    """Show an error to the one tab that caused it, without adding it to the shared transcript."""
    item = NoticeItem(notice=Notice(level=NoticeLevel.WARNING, text=text))
    html = render.item(live.state, item)
    sub.push(render.append_items(str(Markup(html))))
