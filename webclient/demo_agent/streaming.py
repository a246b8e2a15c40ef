"""Streaming a reply as chunks with a small delay, stopping promptly when the turn is cancelled."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterable

from .blocks import JsonDict
from .updates import UpdateSink

__all__ = ["split_chunks", "stream_chunks"]

CHUNK_TARGET = 32
# Long replies (a shown file) would take minutes at ~32 characters per 15 ms; grow the chunks instead so
# any reply streams in at most this many steps.
MAX_CHUNKS = 150


def split_chunks(text: str, target: int = CHUNK_TARGET) -> list[str]:
    """Cut ``text`` into pieces of about ``target`` characters, preferring to end a piece after a space.

    ``"".join(split_chunks(text)) == text`` always holds.
    """
    size = max(target, math.ceil(len(text) / MAX_CHUNKS))
    shortest, longest = size * 5 // 8, size * 5 // 4
    chunks: list[str] = []
    start = 0
    while len(text) - start > longest:
        window = text[start + shortest : start + longest]
        space = max(window.rfind(" "), window.rfind("\n"))
        end = start + shortest + space + 1 if space >= 0 else start + size
        chunks.append(text[start:end])
        start = end
    if start < len(text):
        chunks.append(text[start:])
    return chunks


async def stream_chunks(
    sink: UpdateSink,
    session_id: str,
    chunks: Iterable[str],
    make_update: Callable[[str], JsonDict],
    delay_s: float,
    cancelled: asyncio.Event,
) -> str:
    """Send each chunk as an update, ``delay_s`` apart, until done or ``cancelled`` is set.

    Returns the text actually sent, so a cancelled turn can still record what the user saw.
    """
    sent: list[str] = []
    for index, chunk in enumerate(chunks):
        if index and await _cancelled_during(cancelled, delay_s):
            break
        if cancelled.is_set():
            break
        await sink.session_update(session_id, make_update(chunk))
        sent.append(chunk)
    return "".join(sent)


async def _cancelled_during(cancelled: asyncio.Event, delay_s: float) -> bool:
    if delay_s <= 0:
        return cancelled.is_set()
    # asyncio.timeout, not wait_for: on 3.11 wait_for swallows a task cancellation that lands just as the
    # event is set, and the SDK's shutdown would then wait forever for this task.
    try:
        async with asyncio.timeout(delay_s):
            await cancelled.wait()
    except TimeoutError:
        return False
    return True
