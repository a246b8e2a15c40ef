"""The last lines an agent wrote to stderr, bounded in lines and in bytes, for the exit notice.

Pure: fed raw bytes in whatever pieces the pipe delivers. Memory stays bounded however the agent
writes: a line longer than `line_bytes` keeps its beginning and a marker saying how much was cut, and
the whole tail never holds more than `total_bytes` (older lines go first).
"""

from __future__ import annotations

from collections import deque

from webclient.text_controls import strip_line

TAIL_LINES = 30
TAIL_BYTES = 64 * 1024
LINE_BYTES = 4 * 1024


class StderrTail:
    """Collects stderr output; `lines()` is the tail as text, oldest first."""

    def __init__(
        self, max_lines: int = TAIL_LINES, total_bytes: int = TAIL_BYTES, line_bytes: int = LINE_BYTES
    ) -> None:
        self._lines: deque[str] = deque()
        self._max_lines = max_lines
        self._total_bytes = total_bytes
        self._line_bytes = min(line_bytes, total_bytes)
        self._size = 0
        self._current = bytearray()  # the beginning of the line being written, at most line_bytes
        self._cut = 0  # bytes of the current line beyond line_bytes, counted but not kept
        self._dropped = 0  # whole lines that went to keep the bounds

    def feed(self, data: bytes) -> None:
        """Take the next piece of the stream."""
        *complete, rest = data.split(b"\n")
        for piece in complete:
            self._take(piece)
            self._end_line()
        self._take(rest)

    def close(self) -> None:
        """The stream ended: a last line without a newline counts too."""
        if self._current or self._cut:
            self._end_line()

    def lines(self) -> list[str]:
        """The tail, oldest first; a first line says how many earlier lines were not kept."""
        pending = [self._render(bytes(self._current), self._cut)] if self._current or self._cut else []
        kept = [*self._lines, *pending]
        if not self._dropped and len(kept) <= self._max_lines:
            return kept
        room = max(1, self._max_lines - 1)  # the note takes a line of its own
        dropped = self._dropped + max(0, len(kept) - room)
        return [f"… [{dropped} earlier lines not kept]", *kept[-room:]]

    def _take(self, piece: bytes) -> None:
        room = self._line_bytes - len(self._current)
        self._current += piece[:room]
        self._cut += max(0, len(piece) - room)

    def _end_line(self) -> None:
        line = self._render(bytes(self._current), self._cut)
        self._current.clear()
        self._cut = 0
        self._lines.append(line)
        self._size += len(line.encode("utf-8"))
        while len(self._lines) > self._max_lines or (self._size > self._total_bytes and len(self._lines) > 1):
            self._size -= len(self._lines.popleft().encode("utf-8"))
            self._dropped += 1

    @staticmethod
    def _render(kept: bytes, cut: int) -> str:
        # Agents log in colour for a terminal (codex-acp: "ESC[2m2026-…ESC[0m ESC[33m WARN ESC[0m"); the
        # tail is for a page, so the escapes go here, once, for every place that shows it.
        text = strip_line(kept.decode("utf-8", errors="replace"))
        return f"{text}… [{cut} more bytes cut]" if cut else text
