"""`/playground`: the suggestions playground's page, and "Send to session" (views/playground.py renders).

The input comes as a form post and is rendered at once; nothing of it is kept on the server (the share
link holds it in its fragment, which the browser never sends). Reading and rendering run in a worker
thread, one or two at a time, so a big paste never stalls the sessions the server streams; a page whose
previews would be too big is refused with a message instead.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Annotated, cast
from urllib.parse import parse_qs

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.requests import HTTPConnection

from webclient.acp.models import NoticeLevel, SuggestionsEvent
from webclient.acp.suggestion_input import MAX_INPUT_CHARS, InputError
from webclient.agent_config import DEMO_KEY
from webclient.errors import Refused
from webclient.views import playground
from webclient.web.served import Sessions

NO_STORE = {"cache-control": "no-store"}
# A url-encoded form is at most three bytes per character of the input, plus the small fields.
MAX_FORM_BYTES = 3 * MAX_INPUT_CHARS + 4096
OPEN_TIMEOUT = 30.0
# Renders at once (each in a worker thread), and the most a page may add to the text it echoes.
RENDER_SLOTS = 2
MAX_PAGE_CHARS = 16 * 1024 * 1024


@dataclass(frozen=True)
class Playground:
    """The playground of one server: it shows lists as a session in `workspace` (the server's --cwd)
    would, rendering `RENDER_SLOTS` at once."""

    workspace: str
    slots: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(RENDER_SLOTS))


def _playground(connection: HTTPConnection) -> Playground:
    return cast(Playground, connection.app.state.playground)


Served = Annotated[Playground, Depends(_playground)]
router = APIRouter()


@router.get("/playground", response_class=HTMLResponse)
async def playground_page() -> HTMLResponse:
    return HTMLResponse(playground.page(None, text="", fields=[], error=None), headers=NO_STORE)


@router.post("/playground", response_class=HTMLResponse)
async def playground_show(request: Request, served: Served) -> HTMLResponse:
    text, fields, pick, error = await _form(request)
    async with served.slots:
        html, status = await asyncio.to_thread(_show, text, fields, pick, error, served.workspace)
    return HTMLResponse(html, status_code=status, headers=NO_STORE)


@router.post("/playground/send")
async def playground_send(request: Request, served: Served, sessions: Sessions) -> Response:
    text, fields, pick, error = await _form(request)
    try:
        if error is not None:
            raise InputError(error)
        async with served.slots:
            result = await asyncio.to_thread(playground.play, text, fields, pick, served.workspace)
        live = sessions.new_session(DEMO_KEY)
    except (InputError, Refused) as exc:
        html = playground.page(None, text=text, fields=fields, error=str(exc))
        return HTMLResponse(html, status_code=422, headers=NO_STORE)
    # The list is offered once the demo agent has opened the session (opening starts with none).
    deadline = time.monotonic() + OPEN_TIMEOUT
    while live.state.session_id is None and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    # Offered as if the agent had sent it (the session's own path for an agent's list), and said so.
    live.notice(NoticeLevel.INFO, "these suggestions came from the playground, not from the agent")
    live.apply(SuggestionsEvent(result.state.suggestions))
    return RedirectResponse(f"/s/{live.local_id}", status_code=303)


def _show(text: str, fields: list[str], pick: int, error: str | None, workspace: str) -> tuple[str, int]:
    """The page for the posted input (in a worker thread), and its status: 422 when nothing is shown."""
    result = None
    if error is None:
        try:
            result = playground.play(text, fields, pick, workspace)
        except InputError as exc:
            error = str(exc)
    html = playground.page(result, text=text, fields=fields, error=error)
    if len(html) > len(text) + MAX_PAGE_CHARS:
        error = (
            f"the previews of that update would make a page of {len(html) // (1024 * 1024):,} MB, more than "
            f"the playground sends ({MAX_PAGE_CHARS // (1024 * 1024)} MB); show fewer or shorter suggestions"
        )
        html = playground.page(None, text=text, fields=fields, error=error)
    return html, 200 if error is None else 422


async def _form(request: Request) -> tuple[str, list[str], int, str | None]:
    """The posted text, block types and pick; an error text instead when the form is unusable."""
    form = await read_form(request)
    if isinstance(form, str):
        return "", [], 0, form
    text = form.get("text", [""])[0]
    fields = [f for f in form.get("types", []) if f in playground.TYPE_FIELDS]
    return text, fields, pick_of(form), None


async def read_form(request: Request) -> dict[str, list[str]] | str:
    """A posted form of at most an input's worth, decoded in a worker thread (15 MB of percent-escapes
    take seconds to decode); an error text instead when it is bigger than the playground reads."""
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        return f"that is more than the playground reads ({MAX_INPUT_CHARS:,} characters)"
    return await asyncio.to_thread(_decode_form, body)


def pick_of(form: dict[str, list[str]]) -> int:
    """Which update of a log the form picks (0: the first)."""
    raw_pick = form.get("pick", ["0"])[0]
    return int(raw_pick) if raw_pick.isdigit() and len(raw_pick) < 7 else 0


def _decode_form(body: bytes) -> dict[str, list[str]]:
    return parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)
