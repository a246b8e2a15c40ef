"""The files tests put in front of an agent: the sample project, the demo's shop, a tiny image."""

from __future__ import annotations

import shutil
import struct
import zlib
from pathlib import Path


def make_workspace(root: Path) -> Path:
    """Write the small sample project into `root` (created); returns `root`."""
    (root / "src").mkdir(parents=True)
    (root / "README.md").write_text("# Sample project\n\nA workspace for tests.\n")
    (root / "src" / "app.py").write_text('"""App."""\n\n\ndef main() -> int:\n    return 0\n')
    (root / "notes.txt").write_text("remember the milk\n")
    return root


def fill_workspace(root: Path) -> Path:
    """Write the small shop project the demo agent looks at, removing whatever else `root` holds."""
    root.mkdir(parents=True, exist_ok=True)
    for child in root.iterdir():  # not `root` itself: it is the running agent's working directory
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
    (root / "src").mkdir()
    (root / "README.md").write_text("# Shop\n\nA tiny shop service used in the webclient demo.\n")
    (root / "src" / "cart.py").write_text(
        '"""Shopping cart."""\n\n\nclass Cart:\n'
        "    def __init__(self) -> None:\n        self.items: list[str] = []\n\n"
        "    def add(self, item: str) -> None:\n        self.items.append(item)\n"
    )
    (root / "src" / "pricing.py").write_text(
        '"""Prices."""\n\n\ndef total(prices: list[float]) -> float:\n    return sum(prices)\n'
    )
    (root / "pyproject.toml").write_text('[project]\nname = "shop"\nversion = "1.0"\n')
    return root


def tiny_png() -> bytes:
    """A valid 2x2 red PNG, made here so the test needs no fixture file."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * 2 for _ in range(2))
    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )
