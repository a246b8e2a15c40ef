"""A protocol inspector download read into what a replay plays: the agent's answers and its turns.

Pure: text in, a `Recording` out, or a `RecordingError` whose text names the line that is wrong. Each line
of the download is one object (`webclient/acp/wire_log.py`, `record`): `seq`, `t_ms` (since the session
started), `direction` (`in`: agent to client, `out`: client to agent, `note`: webclient's own), `method`
(a response: its request's method), `response`, `id` and `message` (the JSON-RPC message as it crossed).

A turn is everything the agent sent from one `session/prompt` of the client to the next: its updates, its
requests to the client and the prompt's answer, each with its delay after the prompt. What the agent sent
after `session/new` answered and before the first prompt (commands, a welcome, starter suggestions) is the
opening.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

PROMPT = "session/prompt"
NEW = "session/new"
INITIALIZE = "initialize"
DIRECTIONS = ("in", "out", "note")

StepKind = Literal["notify", "request", "answer"]


class RecordingError(ValueError):
    """The file cannot be replayed; the text says which line (or what is missing) and why."""


@dataclass(frozen=True)
class Step:
    """One message the agent sent, `delay_ms` after the prompt (or after `session/new` answered)."""

    kind: StepKind  # a notification, a request to the client, or the answer to the prompt
    delay_ms: float
    method: str = ""
    params: Any = None
    result: Any = None  # for an answer: the result, or
    error: Any = None  # the error it carried


@dataclass(frozen=True)
class Turn:
    """One recorded prompt and what the agent sent for it."""

    prompt: str  # the prompt's text blocks, joined
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class Recording:
    """What a replay needs of one recorded session."""

    version: int
    initialize: dict[str, Any]  # the result the agent answered `initialize` with
    new_session: dict[str, Any]  # the result of `session/new`
    session_id: str  # the recorded session's id, replaced by the replayed session's own
    opening: tuple[Step, ...]
    turns: tuple[Turn, ...]
    answers: dict[str, Any] = field(default_factory=dict)  # other methods -> their first recorded result


@dataclass(frozen=True)
class _Line:
    number: int
    t_ms: float
    direction: str
    method: str | None
    response: bool
    message: dict[str, Any]


def parse(text: str, name: str = "the recording") -> Recording:
    """The recording in `text` (the inspector's JSONL); raises `RecordingError` naming `name` and the line."""
    lines = [_line(number, raw, name) for number, raw in enumerate(text.splitlines(), 1) if raw.strip()]
    if not lines:
        raise RecordingError(f"{name} is empty: download a session's log from the protocol inspector")
    init = _last_answer(lines, INITIALIZE)
    if init is None:
        raise RecordingError(
            f"{name} has no answer to initialize: download the log of the whole session from the inspector"
        )
    version = init.message["result"].get("protocolVersion")
    if not isinstance(version, int) or isinstance(version, bool):
        raise RecordingError(f"{name} line {init.number}: the initialize answer has no protocolVersion")
    new = _last_answer(lines, NEW)
    if new is None:
        raise RecordingError(f"{name} has no answer to session/new: record a session the page started")
    session_id = new.message["result"].get("sessionId")
    if not isinstance(session_id, str):
        raise RecordingError(f"{name} line {new.number}: the session/new answer has no sessionId")
    after = lines[lines.index(new) + 1 :]
    opening, turns = _turns(after, new.t_ms, version)
    return Recording(
        version=version,
        initialize=init.message["result"],
        new_session=new.message["result"],
        session_id=session_id,
        opening=opening,
        turns=turns,
        answers=_other_answers(lines),
    )


def prompt_text(prompt: Any) -> str:
    """The text blocks of a prompt (`params.prompt`), joined by blank lines."""
    if not isinstance(prompt, list):
        return ""
    texts = [b.get("text") for b in prompt if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return "\n\n".join(t for t in texts if isinstance(t, str))


def _line(number: int, raw: str, name: str) -> _Line:
    where = f"{name} line {number}"
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise RecordingError(f"{where} is not JSON ({exc.msg}): not a protocol inspector log") from None
    if not isinstance(data, dict):
        raise RecordingError(f"{where} is not an object: not a protocol inspector log")
    direction = data.get("direction")
    if direction not in DIRECTIONS:
        raise RecordingError(f'{where} has no "direction" of in, out or note: not a protocol inspector log')
    t_ms = data.get("t_ms")
    if not isinstance(t_ms, int | float) or isinstance(t_ms, bool):
        raise RecordingError(f'{where} has no number "t_ms": not a protocol inspector log')
    message = data.get("message")
    if not isinstance(message, dict):
        raise RecordingError(f'{where} has no "message" object: not a protocol inspector log')
    method = data.get("method")
    if method is not None and not isinstance(method, str):
        raise RecordingError(f'{where}: "method" is not a string')
    return _Line(number, float(t_ms), direction, method, data.get("response") is True, message)


def _last_answer(lines: list[_Line], method: str) -> _Line | None:
    """The agent's last successful answer to `method` (a fallback to v1 answers initialize twice)."""
    found = [
        line
        for line in lines
        if line.direction == "in"
        and line.response
        and line.method == method
        and isinstance(line.message.get("result"), dict)
    ]
    return found[-1] if found else None


def _turns(lines: list[_Line], opened_ms: float, version: int) -> tuple[tuple[Step, ...], tuple[Turn, ...]]:
    opening: list[Step] = []
    turns: list[Turn] = []
    steps: list[Step] = opening
    start = opened_ms
    prompt_id: Any = None
    prompt = ""
    for line in lines:
        if line.direction == "out" and line.method == PROMPT and not line.response:
            if steps is not opening:
                turns.append(_turn(prompt, steps, version))
            steps, start = [], line.t_ms
            prompt_id = line.message.get("id")
            prompt = prompt_text((line.message.get("params") or {}).get("prompt"))
            continue
        if line.direction != "in":
            continue
        step = _step(line, max(0.0, line.t_ms - start), prompt_id)
        if step is not None:
            steps.append(step)
    if steps is not opening:
        turns.append(_turn(prompt, steps, version))
    return tuple(opening), tuple(turns)


def _step(line: _Line, delay: float, prompt_id: Any) -> Step | None:
    message = line.message
    method = message.get("method")
    if isinstance(method, str):
        kind: StepKind = "request" if "id" in message else "notify"
        return Step(kind, delay, method=method, params=message.get("params"))
    if line.response and line.method == PROMPT and message.get("id") == prompt_id and prompt_id is not None:
        return Step("answer", delay, result=message.get("result"), error=message.get("error"))
    return None  # an answer to another request of the client: replayed by `answers`


def _turn(prompt: str, steps: list[Step], version: int) -> Turn:
    """A turn; one whose answer the recording lacks (it was downloaded mid-turn) gets one."""
    if not any(step.kind == "answer" for step in steps):
        last = steps[-1].delay_ms if steps else 0.0
        steps = [*steps, Step("answer", last, result={} if version >= 2 else {"stopReason": "end_turn"})]
    return Turn(prompt, tuple(steps))


def _other_answers(lines: list[_Line]) -> dict[str, Any]:
    """The first recorded result of each other method the client asked (set a mode, list sessions...)."""
    answers: dict[str, Any] = {}
    for line in lines:
        if (
            line.direction == "in"
            and line.response
            and line.method not in (None, PROMPT, NEW, INITIALIZE)
            and "result" in line.message
        ):
            answers.setdefault(str(line.method), line.message["result"])
    return answers
