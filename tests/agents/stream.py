"""A scripted agent for the streaming benchmark: one workload per prompt, chosen by the prompt's text.

    flood N            N one-character chunks as fast as it can write them
    stamped N RATE     N chunks at RATE a second, each carrying the wall-clock time it was written
    markdown N         a long Markdown answer of N blocks (paragraphs, lists, code), in small chunks
    big BYTES          one chunk of BYTES characters
    tool BYTES         one tool call whose update carries BYTES characters of output

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

import wire

SESSION = "stream-1"  # the session being answered; each session/new gets its own id
out = sys.stdout
sessions = 0
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


def stamped(n: int, rate: float) -> None:
    start = time.monotonic()
    for i in range(n):
        due = start + i / rate
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        out.write(chunk(f"[t={time.time() * 1000:.3f}]"))
        out.flush()
    out.write(chunk(END))
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


WORKLOADS = {"flood": flood, "stamped": stamped, "markdown": markdown, "big": big, "tool": tool}

while (msg := wire.read()) is not None:
    method = msg.get("method")
    if method == "initialize":
        wire.respond(msg, wire.initialize_result())
    elif method == "session/new":
        sessions += 1
        wire.respond(msg, {"sessionId": f"stream-{sessions}"})
    elif method == "session/prompt":
        SESSION = msg["params"]["sessionId"]
        name, *args = wire.prompt_text(msg).split()
        END = "\u2016" + (args.pop() if args and args[-1].startswith("#") else "")
        WORKLOADS[name](*(float(a) if "." in a else int(a) for a in args))  # type: ignore[operator]
        out.flush()
        wire.respond(msg, {"stopReason": "end_turn"})
