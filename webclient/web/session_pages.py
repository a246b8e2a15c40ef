"""A session's page, its probe and downloads, and the WebSocket each of its tabs holds."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, WebSocket
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from webclient.acp.wire_log import session_jsonl
from webclient.domain.live_session import LiveSession
from webclient.views import render
from webclient.views.full_texts import full_text
from webclient.views.live import LiveHub
from webclient.web.error_pages import NO_SUCH_SESSION
from webclient.web.served import ServerSettings, Sessions
from webclient.web.tab import serve_tab

NO_STORE = {"cache-control": "no-store"}
GONE = "no such session (it was closed, or the server restarted)"

router = APIRouter()


@router.get("/")
async def index(sessions: Sessions) -> RedirectResponse:
    """A plain visit opens the most recent session."""
    return RedirectResponse(f"/s/{sessions.most_recent().local_id}", status_code=303)


@router.get("/s/{local_id}", response_class=HTMLResponse)
async def session_page(local_id: str, sessions: Sessions, settings: ServerSettings) -> HTMLResponse:
    live = sessions.session(local_id)
    if live is None:  # a page, not JSON: a person followed an old link
        return HTMLResponse(NO_SUCH_SESSION.html(), status_code=404, headers=NO_STORE)
    shown = live.viewers.revision  # read first: a change while the page renders makes its socket resync
    html = render.page(
        live.state,
        ws_path=f"/ws/{local_id}?shown={shown}",
        session_path=f"/s/{local_id}",
        suggestion_style=settings.suggestion_style,
        present=settings.present,
    )
    return HTMLResponse(html, headers=NO_STORE)


@router.head("/s/{local_id}")
async def session_probe(local_id: str, sessions: Sessions) -> Response:
    """A tab whose socket closed asks whether this server still serves it, without the page; the
    security middleware answers 401 first when the server no longer knows the tab's cookie."""
    found = sessions.session(local_id) is not None
    return Response(status_code=200 if found else 404, headers=NO_STORE)


@router.get("/s/{local_id}/inspector.jsonl")
async def inspector_download(local_id: str, sessions: Sessions, method: str = "") -> Response:
    """The protocol inspector's log of one session, one JSON-RPC message a line."""
    live = _live_or_404(sessions.session(local_id))
    body = session_jsonl(sessions.route(live).wire_log, live.state.session_id, method[:200])
    headers = {
        "content-disposition": f'attachment; filename="webclient-{local_id}-protocol.jsonl"',
        **NO_STORE,
    }
    return Response(body, media_type="application/x-ndjson", headers=headers)


@router.get("/agent-text/{key}")
async def agent_text(key: str, sessions: Sessions) -> Response:
    """The whole text of an agent's item too big to show in full (a side of a change, a suggestion),
    from any open session, as a download."""
    for live in list(sessions.sessions.values()):
        text = full_text(live.state, key[:64])
        if text is not None:
            headers = {"content-disposition": 'attachment; filename="webclient-agent-text.txt"', **NO_STORE}
            return Response(text, media_type="text/plain; charset=utf-8", headers=headers)
    raise HTTPException(status_code=404, detail="no such text (it was replaced, or its session closed)")


@router.websocket("/ws/{local_id}")
async def websocket(socket: WebSocket, local_id: str, sessions: Sessions) -> None:
    live = sessions.session(local_id)
    if live is None:
        await socket.close(code=1008)
        return
    await serve_tab(socket, sessions, live)


def _live_or_404(live: LiveSession[LiveHub] | None) -> LiveSession[LiveHub]:
    if live is None:
        raise HTTPException(
            status_code=404, detail="no such session (it was closed, or the server restarted)"
        )
    return live
