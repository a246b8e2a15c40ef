"""One browser tab on one session: its WebSocket, the frames it is sent and the actions it sends.

Every action is a typed `BrowserAction`, dispatched with one `match`; whatever the domain refuses
(`Refused`) or the tab sent malformed (`BadAction`) is shown to that tab alone, here and nowhere else.
"""

from __future__ import annotations

import asyncio
from typing import assert_never

from fastapi import WebSocket, WebSocketDisconnect
from markupsafe import Markup

from webclient.acp.models import ContentPart, Notice, NoticeLevel
from webclient.acp.wire_values import valid_text
from webclient.aio import cancel_and_wait
from webclient.domain.items import NoticeItem
from webclient.domain.live_session import LiveSession
from webclient.domain.picker import file_part, find_files, image_part
from webclient.domain.registry import SessionRegistry
from webclient.domain.stopping import stop_work
from webclient.domain.suggestions import refuse_unread
from webclient.errors import Refused
from webclient.views import hidden_chars, render
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
# What a tab asks, by where it happens: in its own composer, in its session, among the sessions, of the agent.
ComposerAction = (
    PromptAction
    | SuggestionAction
    | EditSuggestionAction
    | DetachAction
    | WaitingAction
    | FindFilesAction
    | AttachFileAction
    | AttachImageAction
)
SessionAction = (
    PermissionAction
    | SetModeAction
    | SetConfigOptionAction
    | CancelAction
    | StopWorkAction
    | ResyncAction
    | InspectorAction
)
SessionsAction = (
    NewSessionAction | OpenSessionAction | DeleteStoredAction | StoredCopyAction | CloseSessionAction
)
AgentAction = RestartAction | AuthenticateAction | SignInEnvAction | CancelSignInAction


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
        """Do what the tab asked: in its own composer, in its session, among the sessions, or of the agent."""
        if isinstance(action, ComposerAction):
            await self._compose(action)
        elif isinstance(action, SessionAction):
            await self._in_session(action)
        elif isinstance(action, SessionsAction):
            await self._among_sessions(action)
        else:
            await self._of_agent(action)

    async def _compose(self, action: ComposerAction) -> None:
        live = self.live
        match action:
            case PromptAction():
                live.submit_composed(action.text, action.attachments, self.sub.composer)
            case SuggestionAction():
                live.send_suggestion(action.generation, action.index, auto_sent=action.auto)
            case EditSuggestionAction():
                chosen = live.find_suggestion(action.generation, action.index)
                refuse_unread(chosen, "put into the composer")
                # Only this tab's composer takes the suggestion's attachments; the page gets their ids.
                _, held = self.sub.composer.take(chosen, hidden_chars.strip_hidden)
                self.sub.push(render.composer_attachments(held, live.state.workspace))
            case DetachAction():
                self.sub.composer.drop(action.id)
            case WaitingAction():
                taken = live.take_back(action.id)
                if action.op == "edit":  # the page puts its text in the composer; its attachments come back
                    _, held = self.sub.composer.take(taken, hidden_chars.strip_hidden)
                    self.sub.push(render.composer_attachments(held, live.state.workspace))
            case FindFilesAction():
                found = await asyncio.to_thread(find_files, self.registry.settings.cwd, action.query)
                self.sub.push(render.file_picker(found, action.query))
            case AttachFileAction() | AttachImageAction():
                self._attach(action)
            case _:
                assert_never(action)

    async def _in_session(self, action: SessionAction) -> None:
        live = self.live
        match action:
            case PermissionAction():
                live.answer_permission(action.request_id, action.option_id)
            case SetModeAction():
                await live.set_mode(action.mode_id)
            case SetConfigOptionAction():
                assert action.value is not None  # the action's validator made it a bool or a value id
                await live.set_config_option(action.config_id, action.value)
            case CancelAction():
                await live.cancel()
            case StopWorkAction():
                await stop_work(live, action.kind, action.work_id)
            case ResyncAction():
                live.viewers.resync(self.sub, action.reason, action.seen)
            case InspectorAction():
                live.viewers.watch_inspector(self.sub, action.open)
            case _:
                assert_never(action)

    async def _among_sessions(self, action: SessionsAction) -> None:
        live, registry = self.live, self.registry
        match action:
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
                closing.viewers.broadcast(render.navigate("/"))  # its tabs go to the most recent session
                await registry.close(action.local_id)
            case _:
                assert_never(action)

    async def _of_agent(self, action: AgentAction) -> None:
        registry = self.registry
        supervisor = registry.route(self.live).supervisor
        match action:
            case RestartAction():
                await registry.restart(self.live.agent_key)
            case AuthenticateAction():
                supervisor.choose_auth(action.method_id)
            case SignInEnvAction():
                await supervisor.give_env(action.method_id, action.values, remember=action.remember)
            case CancelSignInAction():
                await supervisor.cancel_sign_in()
            case _:
                assert_never(action)

    async def _stored_copy(self, action: StoredCopyAction) -> None:
        """Open a stored copy, copy it into a new session (its composer takes the text as a draft, so
        nothing is sent until the user sends it), or delete it (its pages go to the most recent session)."""
        registry = self.registry
        if action.action == "open_copy":
            shown = await registry.kept.open(action.key)
            self.sub.push(render.navigate(f"/s/{shown.local_id}"))
        elif action.action == "copy_into_new":
            opened, text = await registry.kept.copy_into_new_session(action.key)
            self.sub.push(render.navigate(f"/s/{opened.local_id}", draft=text))
        else:
            for view in registry.kept.views(action.key):
                view.viewers.broadcast(render.navigate("/"))
            await registry.kept.delete(action.key)

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
    # The revision the tab's page was rendered at (see `session_page`): no snapshot if it still is.
    sub = live.viewers.subscribe(socket.query_params.get("shown"))
    sender = asyncio.create_task(_send_frames(socket, sub), name="ws-sender")
    try:
        await Tab(registry, live, sub).receive(socket)
    except WebSocketDisconnect:
        pass
    finally:
        live.viewers.unsubscribe(sub)
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
