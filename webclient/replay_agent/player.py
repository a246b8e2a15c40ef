"""The replay agent: a recorded session played to a client over stdio JSON-RPC (ndjson).

Each `session/new` opens a session of its own (its id replaces the recorded one in everything sent), plays
the recording's opening, and then each `session/prompt` plays the next recorded turn at the recorded pace
divided by `speed`. A prompt whose text is not the recorded one still plays the next turn, after a notice
that says so (ACP v2: a `notice` update; v1, which has none: an agent message of its own); past the last
turn, a notice says the recording has ended. Cancel stops the turn where it is.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .recording import PROMPT, Recording, RecordingError, Step, parse, prompt_text

JsonDict = dict[str, Any]
Write = Callable[[JsonDict], None]
LINE_LIMIT = 64 * 1024 * 1024
NOT_FOUND = -32601
SUGGESTIONS = "prompt_suggestions_update"


@dataclass
class _Session:
    id: str
    next_turn: int = 0
    task: asyncio.Task[None] | None = None
    prompt_id: Any = None  # the request of the turn playing, until it is answered
    answered: bool = True
    superseded: bool = False  # the turn playing was cut short by the next prompt, not by cancel
    settled: bool = False  # the turn playing has ended for the client (v1: answered; v2: idle)
    offering: bool = False  # the last list of suggestions sent was not empty
    marks: itertools.count[int] = field(default_factory=lambda: itertools.count(1))


class Player:
    """Answers a client's messages from `recording`; `write` sends one message to the client."""

    def __init__(self, recording: Recording, write: Write, speed: float = 1.0) -> None:
        self._rec = recording
        self._write = write
        self._speed = speed
        self._sessions: dict[str, _Session] = {}
        self._numbers = itertools.count(1)
        self._waiting: dict[str, asyncio.Future[Any]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def v2(self) -> bool:
        return self._rec.version >= 2

    async def handle(self, message: JsonDict) -> None:
        """One message from the client: a request, a notification, or an answer to our request."""
        method = message.get("method")
        if not isinstance(method, str):
            waiter = self._waiting.pop(str(message.get("id")), None)
            if waiter is not None and not waiter.done():
                waiter.set_result(message.get("result"))
            return
        raw = message.get("params")
        params: JsonDict = raw if isinstance(raw, dict) else {}
        if method == "session/cancel":
            self._cancel(str(params.get("sessionId")))
            if "id" in message:
                self._answer(message["id"], {})
            return
        if "id" in message:
            self._request(message["id"], method, params)

    def _request(self, request_id: Any, method: str, params: JsonDict) -> None:
        if method == "initialize":
            self._answer(request_id, self._rec.initialize)
        elif method == "session/new":
            session = _Session(f"replay-{next(self._numbers)}")
            self._sessions[session.id] = session
            self._answer(request_id, self._own(self._rec.new_session, session))
            self._start(session, self._play(session, self._rec.opening))
        elif method == PROMPT and (playing := self._sessions.get(str(params.get("sessionId")))):
            self._supersede(playing)
            playing.prompt_id, playing.answered, playing.settled = request_id, False, False
            playing.task = self._start(playing, self._turn(playing, params.get("prompt")))
        elif method in self._rec.answers:
            named = self._sessions.get(str(params.get("sessionId")))
            result = self._rec.answers[method]
            self._answer(request_id, self._own(result, named) if named else result)
        else:
            error = {"code": NOT_FOUND, "message": f"the recording has no answer to {method}"}
            self._write({"jsonrpc": "2.0", "id": request_id, "error": error})

    def _supersede(self, session: _Session) -> None:
        """A new prompt ends what the last turn still had to send after its answer (a later list of
        suggestions): the recorded agent never sent it into the next turn."""
        if session.task is not None and not session.task.done() and session.settled:
            session.superseded = True
            session.task.cancel()

    def _start(self, session: _Session, work: Any) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _turn(self, session: _Session, prompt: Any) -> None:
        turns = self._rec.turns
        try:
            if session.next_turn >= len(turns):
                self._ended(session, prompt)
                return
            turn = turns[session.next_turn]
            session.next_turn += 1
            asked = prompt_text(prompt)
            differs = _plain(asked) != _plain(turn.prompt)
            if differs:
                self._notice(
                    session,
                    f"Replay: you asked “{_short(asked)}”; the recording asked "
                    f"“{_short(turn.prompt)}”. Its answer follows.",
                )
            await self._play(session, turn.steps, prompt if differs else None)
        except asyncio.CancelledError:
            if session.superseded:
                session.superseded = False
                return
            self._end_turn(session, "cancelled")

    async def _play(self, session: _Session, steps: tuple[Step, ...], prompt: Any = None) -> None:
        """Send `steps` at their pace; `prompt` (the person's, when it is not the recorded one) stands in
        for the recorded prompt where the agent repeats it, and the answer's chunks get a message id of
        their own (after a v1 notice, they would join it)."""
        loop = asyncio.get_running_loop()
        start = loop.time()
        answer_id = f"replay-answer-{next(session.marks)}" if prompt is not None else None
        told: set[str] = set()  # the kinds of the prompt's repeat already sent
        for step in steps:
            await asyncio.sleep(max(0.0, start + step.delay_ms / 1000 / self._speed - loop.time()))
            if step.kind == "answer":
                self._answer_prompt(session, step)
                session.settled = not self.v2
            elif step.kind == "request":
                began = loop.time()
                await self._ask(step.method, self._own(step.params, session))
                start += loop.time() - began  # the person's time to answer is not the recording's
            else:
                params = _retold(self._own(step.params, session), prompt, answer_id, told)
                if params is not None:
                    self._write({"jsonrpc": "2.0", "method": step.method, "params": params})
                    session.settled = session.settled or _idle(params)
                    session.offering = _offers(params, session.offering)

    async def _ask(self, method: str, params: Any) -> Any:
        request_id = f"replay-request-{next(self._numbers)}"
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = waiter
        self._write({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        try:
            return await waiter
        finally:
            self._waiting.pop(request_id, None)

    def _answer_prompt(self, session: _Session, step: Step) -> None:
        if session.answered:
            return
        session.answered = True
        if step.error is not None:
            self._write({"jsonrpc": "2.0", "id": session.prompt_id, "error": step.error})
        else:
            self._answer(session.prompt_id, step.result)

    def _ended(self, session: _Session, prompt: Any) -> None:
        """A prompt past the recording's last turn: a notice says so, and the turn ends (a v2 agent
        inserts the prompt's user message first: the client counts a turn as started by it)."""
        if self.v2:
            self._answer(session.prompt_id, {})
            session.answered = True
            mark = f"replay-user-{next(session.marks)}"
            user = {"sessionUpdate": "user_message", "messageId": mark, "content": prompt or []}
            self._update(session, user)
        if session.offering:  # a new prompt makes the last list stale: the RFD asks to withdraw it
            self._update(session, {"sessionUpdate": SUGGESTIONS, "suggestions": []})
            session.offering = False
        count = len(self._rec.turns)
        played = f"{count} turn{'s were' if count != 1 else ' was'} played"
        self._notice(session, f"The recording has ended: its {played}. Start a new session to play it again.")
        self._end_turn(session, "end_turn")

    def _end_turn(self, session: _Session, reason: str) -> None:
        """The turn ends early (cancelled) or without a recorded turn: answered as the version ends one."""
        if self.v2:
            if not session.answered:
                self._answer(session.prompt_id, {})
            update = {"sessionUpdate": "state_update", "state": "idle", "stopReason": reason}
            self._update(session, update)
        elif not session.answered:
            self._answer(session.prompt_id, {"stopReason": reason})
        session.answered = True

    def _cancel(self, session_id: str) -> None:
        session = self._sessions.get(session_id)
        if session is not None and session.task is not None and not session.task.done():
            session.task.cancel()

    def _notice(self, session: _Session, text: str) -> None:
        if self.v2:
            self._update(session, {"sessionUpdate": "notice", "title": text, "severity": "info"})
            return
        chunk = {"type": "text", "text": text}
        mark = f"replay-notice-{next(session.marks)}"
        self._update(session, {"sessionUpdate": "agent_message_chunk", "content": chunk, "messageId": mark})

    def _update(self, session: _Session, update: JsonDict) -> None:
        params = {"sessionId": session.id, "update": update}
        self._write({"jsonrpc": "2.0", "method": "session/update", "params": params})

    def _answer(self, request_id: Any, result: Any) -> None:
        self._write({"jsonrpc": "2.0", "id": request_id, "result": result})

    def _own(self, value: Any, session: _Session) -> Any:
        """`value` with the recorded session's id replaced by `session`'s."""
        if value == self._rec.session_id:
            return session.id
        if isinstance(value, dict):
            return {key: self._own(inner, session) for key, inner in value.items()}
        if isinstance(value, list):
            return [self._own(inner, session) for inner in value]
        return value

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task


def _retold(params: Any, prompt: Any, answer_id: str | None, told: set[str]) -> Any:
    """A recorded update as sent after a prompt that is not the recorded one: the agent's repeat of the
    prompt carries the person's (None: a further chunk of it, left out; `told` keeps what was sent), and
    the answer's chunks without a message id get one apart from the notice's (in v1 they would join it)."""
    if prompt is None or not isinstance(params, dict) or not isinstance(params.get("update"), dict):
        return params
    update = dict(params["update"])
    kind = update.get("sessionUpdate")
    blocks = prompt if isinstance(prompt, list) else []
    if kind == "user_message":
        update["content"] = blocks
    elif kind == "user_message_chunk":
        if kind in told or not blocks:
            return None
        told.add(kind)
        update["content"] = blocks[0]
    elif kind == "agent_message_chunk" and "messageId" not in update:
        update["messageId"] = answer_id
    return {**params, "update": update}


def _offers(params: Any, before: bool) -> bool:
    """Whether suggestions are on offer after this update (unchanged by any other kind)."""
    update = params.get("update") if isinstance(params, dict) else None
    if not isinstance(update, dict) or update.get("sessionUpdate") != SUGGESTIONS:
        return before
    return bool(update.get("suggestions"))


def _idle(params: Any) -> bool:
    """Whether a v2 update says the turn is over (`state_update` to idle)."""
    update = params.get("update") if isinstance(params, dict) else None
    return (
        isinstance(update, dict)
        and update.get("sessionUpdate") == "state_update"
        and update.get("state") == "idle"
    )


def _plain(text: str) -> str:
    return " ".join(text.split()).casefold()


def _short(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


async def serve(recording: Recording, speed: float) -> None:
    """Play `recording` to the client on stdin/stdout until stdin closes."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    out = sys.stdout.buffer

    def write(message: JsonDict) -> None:
        out.write(json.dumps(message, ensure_ascii=False).encode() + b"\n")
        out.flush()

    player = Player(recording, write, speed)
    try:
        while line := await reader.readline():
            try:
                data = json.loads(line)
            except ValueError:
                continue
            for message in data if isinstance(data, list) else [data]:
                if isinstance(message, dict):
                    await player.handle(message)
    finally:
        await player.close()


def _speed(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError("the speed must be above 0")
    return value


def main(argv: list[str] | None = None) -> int:
    """``python -m webclient.replay_agent RECORDING [--speed F]``: 2 when the recording cannot be played."""
    parser = argparse.ArgumentParser(
        prog="webclient replay", description="Play a protocol inspector download back as an ACP agent."
    )
    parser.add_argument("recording", help="a session's log downloaded from the protocol inspector (.jsonl)")
    parser.add_argument(
        "--speed", type=_speed, default=1.0, help="how much faster than recorded to play (default 1)"
    )
    args = parser.parse_args(argv)
    path = Path(args.recording)
    try:
        recording = parse(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError) as exc:
        print(f"webclient replay: cannot read {path}: {exc}", file=sys.stderr)
        return 2
    except RecordingError as exc:
        print(f"webclient replay: {exc}", file=sys.stderr)
        return 2
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(recording, args.speed))
    return 0
