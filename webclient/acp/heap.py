"""Giving back to the system the memory that big messages from an agent left free.

An agent may send many messages of a few MiB each (a 1.5 MiB chunk for a session it made up, a
terminal's 1 MiB of output). Once handled and dropped, their memory is free but glibc keeps most of it
resident: it serves blocks that size from its heap after the first few are freed (its threshold for
mapping a block of its own rises to their size), and the holes between blocks still alive are not
returned. A flood of such messages then grew the server by tens of MiB over what it kept. `malloc_trim`
returns the free pages inside the heap too; it is called before each big line is parsed, on the worker
thread that parses it (ctypes lets go of the interpreter's lock for the call), so it holds no other tab.
Mapping every big block of its own instead (a fixed `M_MMAP_THRESHOLD`) made each chunk appended to a
long answer or a command's output cost a fresh mapping, growing with the answer.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys
from collections.abc import Callable


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # musl and other C libraries have no malloc_trim
        return None
    return trim


def give_back_free_memory() -> bool:
    """Return the heap's free pages to the system; False where the C library cannot (nothing done)."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
