"""Stand-ins for the asyncio streams an agent process gives the client."""

from __future__ import annotations


class FakeWriter:
    """Records what the transport writes; enough of asyncio.StreamWriter for send() and close()."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.drains = 0
        self.eof = False
        self.closed = False

    def write(self, data: bytes) -> None:
        self.data += data

    async def drain(self) -> None:
        self.drains += 1

    def write_eof(self) -> None:
        self.eof = True

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed
