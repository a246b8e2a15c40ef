"""What the user can attach to a prompt: workspace files found by name (the `@` picker) and images.

Pure apart from reading the workspace tree. A found file becomes a file link (`ResourceLinkPart`); a
pasted or chosen image an `ImagePart`, checked to be an image a browser shows without running code.
"""

from __future__ import annotations

import base64
import binascii
import os
from dataclasses import dataclass
from pathlib import Path

from webclient.acp.models import DISPLAYABLE_IMAGE_TYPES, ImagePart, ResourceLinkPart
from webclient.errors import Refused

SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "node_modules",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "dist",
        "build",
        ".tox",
    }
)
MAX_SCANNED = 20_000
MAX_RESULTS = 20
MAX_IMAGE_BYTES = 5 * 1024 * 1024


class AttachmentRejected(Refused):
    """The attachment cannot be added; the message is safe to show to the user."""


@dataclass(frozen=True)
class FoundFile:
    relative: str
    absolute: Path

    def part(self) -> ResourceLinkPart:
        return ResourceLinkPart(name=self.absolute.name, uri=self.absolute.as_uri())


def find_files(root: Path, query: str, limit: int = MAX_RESULTS) -> list[FoundFile]:
    """Files under `root` whose relative path contains every word of `query` (case-insensitive).

    Best matches first: the name itself matching, then shorter paths. Hidden and tool folders are
    skipped, and the walk stops after MAX_SCANNED entries so a huge tree cannot stall the server.
    """
    words = query.lower().split()
    scored: list[tuple[int, int, str, Path]] = []
    for relative, path in _walk(root):
        haystack = relative.lower()
        if all(word in haystack for word in words):
            name_hit = 0 if words and all(word in path.name.lower() for word in words) else 1
            scored.append((name_hit, len(relative), relative, path))
    scored.sort()
    return [FoundFile(relative=r, absolute=p) for _, _, r, p in scored[:limit]]


def file_part(root: Path, relative: str) -> ResourceLinkPart:
    """The link to a workspace file the user picked; refuses anything outside `root`."""
    base = root.resolve()
    target = (base / relative).resolve()
    if not target.is_relative_to(base) or not target.is_file():
        raise AttachmentRejected(f"{relative!r} is not a file in the workspace")
    return FoundFile(relative=relative, absolute=target).part()


def image_part(mime_type: str, data: str) -> ImagePart:
    """The image part for a pasted or chosen image (base64 data)."""
    if mime_type.lower() not in DISPLAYABLE_IMAGE_TYPES:
        raise AttachmentRejected(
            f"images of type {mime_type!r} cannot be attached (use PNG, JPEG, GIF or WebP)"
        )
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise AttachmentRejected("the image data is not valid base64") from None
    if not raw:
        raise AttachmentRejected("the image is empty")
    if len(raw) > MAX_IMAGE_BYTES:
        raise AttachmentRejected(f"the image is larger than {MAX_IMAGE_BYTES // (1024 * 1024)} MB")
    return ImagePart(mime_type=mime_type.lower(), data=data)


def _walk(root: Path) -> list[tuple[str, Path]]:
    found: list[tuple[str, Path]] = []
    scanned = 0
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        for name in sorted(files):
            scanned += 1
            if scanned > MAX_SCANNED:
                return found
            if name.startswith("."):
                continue
            path = Path(directory) / name
            found.append((str(path.relative_to(root)), path))
    return found
