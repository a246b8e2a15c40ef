"""A scripted agent for the streaming benchmark: one workload per prompt, chosen by the prompt's text.

    flood N            N one-character chunks as fast as it can write them
    stamped N RATE     N chunks at RATE a second, each carrying the wall-clock time it was written
    code N RATE        the same, one stamp a line inside one fenced code block
    list N RATE        the same, one stamp an item of one long list
    terminal N RATE    the same, one stamp a line of a command's output streamed in a tool call's `_meta`
                       (`terminal_output_delta`, as codex-acp streams it)
    history N          N tool calls, each started and completed (a long session's transcript)
    corpus NAME SEED   an answer of tests/support/markdown_corpus.py in random chunks, a little apart
    markdown N         a long Markdown answer of N blocks (paragraphs, lists, code), in small chunks
    big BYTES          one chunk of BYTES characters
    tool BYTES         one tool call whose update carries BYTES characters of output
    diff BYTES         one tool call whose update carries a diff of BYTES characters (old and new text)

Stamps are `[t=<epoch ms>]` so the page (or a client) can measure stamp -> seen. Every answer ends with
the marker `‖`, followed by the prompt's optional last word `#tag` (so a page that also shows earlier
answers can tell this one's end), and every turn with `end_turn`. Writes go straight to the stdout
buffer (no per-line flush during a flood) to be the fastest agent a client can meet; stamped chunks
flush each line so their stamp is honest.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import wire

SESSION = "stream-1"  # the session being answered; each session/new gets its own id
out = sys.stdout
END = "\u2016"


def chunk(text: str) -> str:
    body = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    message = {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": SESSION, "update": body}}
    return json.dumps(message) + "\n"


def flood(n: int) -> None:
    letters = "abcdefghijklmnopqrstuvwxyz"
    for i in range(n):
        out.write(chunk(letters[i % 26]))
    out.write(chunk(END))  # the end marker the benchmark pages wait for
    out.flush()


def stamped(n: int, rate: float, before: str = "", line: str = "{stamp}", after: str = "") -> None:
    if before:
        out.write(chunk(before))
    start = time.monotonic()
    for i in range(n):
        due = start + i / rate
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        out.write(chunk(line.format(stamp=f"[t={time.time() * 1000:.3f}]")))
        out.flush()
    out.write(chunk(after + END))
    out.flush()


def code(n: int, rate: float) -> None:
    stamped(n, rate, before="```python\n", line="seen = {stamp!r}\n", after="```\n")


def listed(n: int, rate: float) -> None:
    stamped(n, rate, line="- item {stamp}\n", after="\n")


def terminal(n: int, rate: float) -> None:
    """A command's output streamed into its tool call's card, one stamped line at a time."""
    wire.update(
        SESSION,
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "run1",
            "title": "Run the tests",
            "status": "in_progress",
        },
    )
    start = time.monotonic()
    for i in range(n):
        delay = start + i / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        line = f"test_{i:05} passed [t={time.time() * 1000:.3f}]\n"
        delta = {"terminal_output_delta": {"terminal_id": "run1", "data": line}}
        update = {"sessionUpdate": "tool_call_update", "toolCallId": "run1", "_meta": delta}
        out.write(json.dumps(_update(update)) + "\n")
        out.flush()
    meta: dict[str, dict[str, object]] = {"terminal_exit": {"terminal_id": "run1", "exit_code": 0}}
    done = {"sessionUpdate": "tool_call_update", "toolCallId": "run1", "status": "completed", "_meta": meta}
    out.write(json.dumps(_update(done)) + "\n")
    out.write(chunk(END))
    out.flush()


def history(n: int) -> None:
    for i in range(n):
        tool_id = f"h{i}"
        start = {"sessionUpdate": "tool_call", "toolCallId": tool_id, "title": f"Step {i}", "kind": "read"}
        out.write(json.dumps(_update(start)) + "\n")
        done = {"sessionUpdate": "tool_call_update", "toolCallId": tool_id, "status": "completed"}
        out.write(json.dumps(_update(done)) + "\n")
    out.write(chunk(END))
    out.flush()


def _update(body: Mapping[str, object]) -> dict[str, object]:
    return {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": SESSION, "update": body}}


def corpus(name: str, seed: int) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.support.markdown_corpus import CORPUS, random_chunks

    for n, piece in enumerate(random_chunks(CORPUS[name.replace("_", " ")], seed)):
        out.write(chunk(piece))
        out.flush()
        if n % 5 == 0:
            time.sleep(0.01)  # apart enough for the page to get many frames
    out.write(chunk("\n\n" + END))
    out.flush()


def markdown(n: int) -> None:
    kinds = (
        "Paragraph {i} explains *one* thing with `code` and a [link](https://example.com/{i}).\n\n",
        "- item {i}.a\n- item {i}.b with **bold**\n\n",
        "```python\nprint({i})\n```\n\n",
        "## Heading {i}\n\n",
    )
    text = "".join(kinds[i % len(kinds)].format(i=i) for i in range(n))
    for start in range(0, len(text), 16):
        out.write(chunk(text[start : start + 16]))
    out.write(chunk(END))
    out.flush()


def big(size: int) -> None:
    out.write(chunk("x" * size + END))
    out.flush()


def tool(size: int) -> None:
    wire.update(SESSION, {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read a big file"})
    content = [{"type": "content", "content": {"type": "text", "text": "y" * size}}]
    wire.update(
        SESSION,
        {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed", "content": content},
    )
    out.write(chunk(END))
    out.flush()


def diff(size: int) -> None:
    """A file of short lines rewritten: every tenth line changed, each side about `size / 2`."""
    lines = max(1, size // 2 // len("line 0000000 of the file\n"))
    old = "".join(f"line {n:07} of the file\n" for n in range(lines))
    new = "".join(f"line {n:07} {'of the FILE' if n % 10 == 0 else 'of the file'}\n" for n in range(lines))
    wire.update(SESSION, {"sessionUpdate": "tool_call", "toolCallId": "d1", "title": "Edit a big file"})
    content = [{"type": "diff", "path": "/w/big.txt", "oldText": old, "newText": new}]
    wire.update(
        SESSION,
        {"sessionUpdate": "tool_call_update", "toolCallId": "d1", "status": "completed", "content": content},
    )
    out.write(chunk(END))
    out.flush()


WORKLOADS = {
    "flood": flood,
    "stamped": stamped,
    "code": code,
    "list": listed,
    "terminal": terminal,
    "history": history,
    "corpus": corpus,
    "markdown": markdown,
    "big": big,
    "tool": tool,
    "diff": diff,
}


def turn(request: dict[str, Any]) -> None:
    """Run the workload the prompt names (`name arg... [#tag]`), then answer `end_turn`."""
    global SESSION, END
    SESSION = request["params"]["sessionId"]
    name, *args = wire.prompt_text(request).split()
    END = "\u2016" + (args.pop() if args and args[-1].startswith("#") else "")
    values = (a if not a[0].isdigit() else float(a) if "." in a else int(a) for a in args)
    WORKLOADS[name](*values)  # type: ignore[operator]
    out.flush()
    wire.respond(request, {"stopReason": "end_turn"})


wire.serve(turn, sessions="stream")
