"""A tiny valid PNG made in code, so image suggestions need no asset files."""

from __future__ import annotations

import base64
import struct
import zlib
from functools import cache

__all__ = ["PNG_MIME", "tiny_png_base64"]

PNG_MIME = "image/png"
_SIZE = 8


@cache
def tiny_png_base64() -> str:
    """An 8x8 RGB PNG (a two-colour checkerboard), base64-encoded; the same bytes on every call."""
    return base64.b64encode(_png(_SIZE, _SIZE, _checkerboard_rows())).decode("ascii")


def _checkerboard_rows() -> bytes:
    teal, amber = b"\x1f\x8a\x8a", b"\xf2\xa9\x00"
    rows = bytearray()
    for y in range(_SIZE):
        rows.append(0)  # filter type "none" for every scanline
        for x in range(_SIZE):
            rows += teal if (x // 2 + y // 2) % 2 == 0 else amber
    return bytes(rows)


def _png(width: int, height: int, raw_rows: bytes) -> bytes:
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit depth, truecolour, no interlace
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(raw_rows, 9))
        + _chunk(b"IEND", b"")
    )


def _chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))
