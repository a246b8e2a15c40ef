"""Files named as the user knows them: a path inside the session's workspace relative to it.

The page shows a workspace file as `src/cart.py`, not `/home/me/projects/shop/src/cart.py` nor
`file:///home/me/projects/shop/src/cart.py`: the long form says nothing the user does not know and pushes
what matters off a phone's line. A path outside the workspace, or any other URI, shows whole, since where
it points is then the news. Pure, no HTML; the templates keep the full form on hover (`title`).
"""

from __future__ import annotations

from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit


def inside(path: PurePosixPath, workspace: str) -> bool:
    """Whether `path` lies in `workspace` (or is it); every path does when no workspace is given."""
    if not workspace:
        return True
    root = PurePosixPath(workspace)
    return ".." not in path.parts and (path == root or root in path.parents)


def shown_path(path: str, workspace: str = "") -> str:
    """`path` relative to `workspace` when it lies inside it (`.` for the workspace itself), else as given."""
    if not workspace or not path.startswith("/"):
        return path
    target = PurePosixPath(path)
    if not inside(target, workspace):
        return path
    return str(target.relative_to(workspace))


def shown_uri(uri: str, workspace: str = "") -> str:
    """A `file://` URI of a file inside `workspace` as its relative path; any other URI as given."""
    parts = urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost") or parts.query or parts.fragment:
        return uri
    path = unquote(parts.path)
    shown = shown_path(path, workspace)
    return uri if shown == path else shown
