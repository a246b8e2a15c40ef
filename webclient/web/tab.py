"""One browser tab on one session: its WebSocket, the frames it is sent and the actions it sends.

Every action is a typed `BrowserAction`, dispatched with one `match`; whatever the domain refuses
(`Refused`) or the tab sent malformed (`BadAction`) is shown to that tab alone, here and nowhere else.
"""

from __future__ import annotations

import asyncio
from typing import assert_never

from fastapi import WebSocket, WebSocketDisconnect
from markupsafe import Markup

from webclient.acp.models import ContentPart, Notice, NoticeLevel, Suggestion
from webclient.acp.wire_values import valid_text
from webclient.aio import cancel_and_wait
from webclient.domain.items import NoticeItem
from webclient.domain.live_session import LiveSession
from webclient.domain.picker import file_part, find_files, image_part
from webclient.domain.registry import SessionRegistry
from webclient.domain.stopping import stop_work
from webclient.errors import Refused
from webclient.views import hidden_chars, render
from webclient.views.chips import chip_view
from webclient.views.live import LiveHub
from webclient.views.subscriber import Subscriber
from webclient.web.actions import (
    AttachFileAction,
    AttachImageAction,
    AuthenticateAction,
    BadAction,
    BrowserAction,
    CancelAction,
    CancelSignInAction,
    CloseSessionAction,
    DeleteStoredAction,
    DetachAction,
    EditSuggestionAction,
    FindFilesAction,
    InspectorAction,
    NewSessionAction,
    OpenSessionAction,
    PermissionAction,
    PromptAction,
    RestartAction,
    ResyncAction,
    SetConfigOptionAction,
    SetModeAction,
    SignInEnvAction,
    StopWorkAction,
    StoredCopyAction,
    SuggestionAction,
    WaitingAction,
    parse_action,
)

Registry = SessionRegistry[LiveHub]
Live = LiveSession[LiveHub]


class Tab:
    """A connected tab: the session it shows and its own queue of frames."""

    def __init__(self, registry: Registry, live: Live, sub: Subscriber) -> None:
        self.registry = registry
        self.live = live
        self.sub = sub

    def tell(self, text: str, detail: str | None = None) -> None:
        """Show a message to this tab only, without adding it to the shared transcript."""
        item = NoticeItem(notice=Notice(level=NoticeLevel.WARNING, text=text, detail=detail))
        # Marked as this tab's own: it is no part of what the session's digest says the page shows.
        self.sub.push(render.append_items(str(Markup(render.item(self.live.state, item, local=True)))))

    async def receive(self, socket: WebSocket) -> None:
        """Act on every message the tab sends, until it goes away."""
        while True:
            message = await socket.receive()
            if message["type"] == "websocket.disconnect":
                raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
            raw = message.get("text")
            try:
                if raw is None:  # a binary frame: receive_text() would raise KeyError and drop the tab
                    raise BadAction("the browser sent a binary message; this server only understands text")
                await self.dispatch(parse_action(raw))
            except BadAction as exc:
                self.tell(str(exc))
            except Refused as exc:
                self.tell(str(exc), exc.detail)

    async def dispatch(self, action: BrowserAction) -> None:
        live, registry = self.live, self.registry
        match action:
            case PromptAction():
                live.submit_composed(action.text, action.attachments, self.sub.composer)
            case SuggestionAction():
                _refuse_oversized(_suggestion_if_there(live, action.generation, action.index), "sent")
                live.send_suggestion(action.generation, action.index, auto_sent=action.auto)
            case EditSuggestionAction():
                chosen = live.find_suggestion(action.generation, action.index)
                _refuse_oversized(chosen, "put into the composer")
                # Only this tab's composer takes the suggestion's attachments; the page gets their ids.
                _, held = self.sub.composer.take(chosen, hidden_chars.strip_hidden)
                self.sub.push(render.composer_attachments(held, live.state.workspace))
            case DetachAction():
                self.sub.composer.drop(action.id)
            case PermissionAction():
                live.answer_permission(action.request_id, action.option_id)
            case SetModeAction():
                await live.set_mode(action.mode_id)
            case SetConfigOptionAction():
                assert action.value is not None  # the action's validator made it a bool or a value id
                await live.set_config_option(action.config_id, action.value)
            case CancelAction():
                await live.cancel()
            case ResyncAction():
                live.hub.resync(self.sub, action.reason, action.seen)
            case WaitingAction():
                taken = live.take_back(action.id)
                if action.op == "edit":  # the page puts its text in the composer; its attachments come back
                    _, held = self.sub.composer.take(taken, hidden_chars.strip_hidden)
                    self.sub.push(render.composer_attachments(held, live.state.workspace))
            case StopWorkAction():
                await stop_work(live, action.kind, action.work_id)
            case RestartAction():
                await registry.restart(live.agent_key)
            case InspectorAction():
                live.hub.watch_inspector(self.sub, action.open)
            case FindFilesAction():
                found = await asyncio.to_thread(find_files, registry.settings.cwd, action.query)
                self.sub.push(render.file_picker(found, action.query))
            case AttachFileAction() | AttachImageAction():
                self._attach(action)
            case NewSessionAction():
                opened_new = registry.new_session(action.agent or live.agent_key)
                self.sub.push(render.navigate(f"/s/{opened_new.local_id}"))
            case OpenSessionAction():
                resume = action.mode == "resume"
                opened = await registry.open_stored(
                    action.session_id, resume=resume, agent_key=live.agent_key
                )
                self.sub.push(render.navigate(f"/s/{opened.local_id}"))
            case DeleteStoredAction():
                await registry.delete_stored(action.session_id, live.agent_key)
            case StoredCopyAction():
                await self._stored_copy(action)
            case CloseSessionAction():
                closing = registry.session(action.local_id)
                if closing is None:
                    raise Refused("no such session")
                closing.hub.broadcast(render.navigate("/"))  # its tabs go to the most recent session
                await registry.close(action.local_id)
            case AuthenticateAction():
                registry.route(live).supervisor.choose_auth(action.method_id)
            case SignInEnvAction():
                supervisor = registry.route(live).supervisor
                await supervisor.give_env(action.method_id, action.values, remember=action.remember)
            case CancelSignInAction():
                await registry.route(live).supervisor.cancel_sign_in()
            case _:
                assert_never(action)

    async def _stored_copy(self, action: StoredCopyAction) -> None:
        """Open a stored copy, copy it into a new session (its composer takes the text as a draft, so
        nothing is sent until the user sends it), or delete it (its pages go to the most recent session)."""
        registry = self.registry
        if action.action == "open_copy":
            shown = await registry.open_copy(action.key)
            self.sub.push(render.navigate(f"/s/{shown.local_id}"))
        elif action.action == "copy_into_new":
            opened, text = await registry.copy_into_new_session(action.key)
            self.sub.push(render.navigate(f"/s/{opened.local_id}", draft=text))
        else:
            for view in registry.copy_views(action.key):
                view.hub.broadcast(render.navigate("/"))
            await registry.delete_copy(action.key)

    def _attach(self, action: AttachFileAction | AttachImageAction) -> None:
        """Add a file link or an image to this tab's composer, as a pill it sends with the prompt."""
        if isinstance(action, AttachFileAction):
            part: ContentPart = file_part(self.registry.settings.cwd, action.path)
        elif not self.live.prompt_capabilities.image:
            raise Refused("this agent does not accept images in prompts")
        else:
            part = image_part(action.mime_type, action.data)
        held = self.sub.composer.add(part, inline=isinstance(action, AttachFileAction))
        self.sub.push(render.composer_pill(held, self.live.state.workspace))


async def serve_tab(socket: WebSocket, registry: Registry, live: Live) -> None:
    """Serve one tab on `live` until it disconnects; its frames go out while its actions come in."""
    await socket.accept()
    sub = live.hub.subscribe()
    sender = asyncio.create_task(_send_frames(socket, sub), name="ws-sender")
    try:
        await Tab(registry, live, sub).receive(socket)
    except WebSocketDisconnect:
        pass
    finally:
        live.hub.unsubscribe(sub)
        await cancel_and_wait(sender)


async def _send_frames(socket: WebSocket, sub: Subscriber) -> None:
    """Send the tab its frames in order, until the hub ends its stream (the page then reconnects)."""
    while True:
        frame = await sub.frames.get()
        if frame is None:  # the hub dropped this tab (too slow) or is shutting down
            await socket.close(code=1012)
            return
        try:
            await socket.send_text(frame)
        except UnicodeEncodeError:
            # Text from this machine rather than the agent, such as a file name that is not UTF-8 (Python
            # reads it with surrogate escapes), cannot go in a WebSocket text message. Raised here, it
            # ended this sender while the tab stayed connected, and the page never heard of a change again.
            await socket.send_text(valid_text(frame))


def _suggestion_if_there(live: LiveSession[LiveHub], generation: int, index: int) -> Suggestion | None:
    try:
        return live.find_suggestion(generation, index)
    except Refused:
        return None  # replaced meanwhile: sending it says so


def _refuse_oversized(suggestion: Suggestion | None, what: str) -> None:
    """A suggestion the chip could not show in full is never used unread (its text is a download)."""
    chip = None if suggestion is None else chip_view(suggestion)
    if chip is not None and chip.oversized:
        raise Refused(
            f"that suggestion is {chip.unshown_chars:,} characters longer than the page can show, so it "
            f"was not {what}; download its whole text from the suggestion to read it"
        )
