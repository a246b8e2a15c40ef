"""What the agent predicts the user will send next, within the content types both sides allow.

Predictions are pure: the agent decides *when* to send them (see offers.py). Every prediction passes
``is_sendable``, so a suggestion with an empty prompt, whitespace-only text as its only content, or a block
type the client or the agent cannot take is never sent; only the /suggest* scenarios bypass this.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from .blocks import JsonDict, file_link, image, suggestion, text
from .capabilities import SuggestionSupport
from .images import PNG_MIME, tiny_png_base64
from .workspace import Listing, Workspace, WorkspaceError

__all__ = ["Topic", "TopicKind", "interesting_files", "is_sendable", "predict"]

MAX_FILE_SUGGESTIONS = 3
# Files worth suggesting, most telling first; anything else that is not clearly binary comes after them.
_PREFERRED_SUFFIXES = (".py", ".md", ".toml", ".json", ".txt", ".rst", ".js", ".ts", ".yaml", ".yml", ".cfg")
_BINARY_SUFFIXES = frozenset(
    {".pyc", ".pyo", ".so", ".dll", ".exe", ".bin", ".png", ".jpg", ".jpeg", ".gif", ".ico", ".pdf", ".zip",
     ".gz", ".tgz", ".xz", ".whl", ".woff", ".woff2", ".sqlite", ".db", ".lock"}
)  # fmt: skip


class TopicKind(Enum):
    """What the turn that just ended was about; the prediction follows from it."""

    HELP = "help"
    LISTED = "listed"
    SHOWN = "shown"
    EXPLAINED = "explained"
    COUNTED = "counted"
    MEDIA = "media"
    REFUSED = "refused"


@dataclass(frozen=True, slots=True)
class Topic:
    kind: TopicKind
    listing: Listing | None = None
    file: Path | None = None
    count: int = 0


def predict(topic: Topic, workspace: Workspace, support: SuggestionSupport) -> list[JsonDict]:
    """Suggestions for the conversation as it stands after a turn about ``topic``, most likely first."""
    candidates = _CANDIDATES[topic.kind](topic, workspace, support)
    return [entry for entry in candidates if is_sendable(entry, support)]


def is_sendable(entry: Any, support: SuggestionSupport) -> bool:
    """Whether a suggestion obeys the RFD's content rules for this connection."""
    prompt = entry.get("prompt") if isinstance(entry, dict) else None
    if not isinstance(prompt, list) or not prompt:
        return False
    if not all(isinstance(block, dict) and support.allows(str(block.get("type"))) for block in prompt):
        return False
    if not all(isinstance(block.get("text"), str) for block in prompt if block["type"] == "text"):
        return False
    # Only-blank text is no prompt at all; a link or image beside blank text still is one.
    return any(block["type"] != "text" or block["text"].strip() for block in prompt)


def interesting_files(listing: Listing, limit: int = MAX_FILE_SUGGESTIONS) -> list[Path]:
    """The files of a listing most worth opening: README first, then source and docs, never binaries."""
    files = [
        path
        for path in listing.entries
        if path not in listing.directories and path.suffix.lower() not in _BINARY_SUFFIXES
    ]
    return sorted(files, key=_file_rank)[:limit]


def _file_rank(path: Path) -> int:
    if path.name.lower().startswith("readme"):
        return 0
    suffix = path.suffix.lower()
    return (
        1 + _PREFERRED_SUFFIXES.index(suffix)
        if suffix in _PREFERRED_SUFFIXES
        else 1 + len(_PREFERRED_SUFFIXES)
    )


def _link(workspace: Workspace, path: Path) -> JsonDict:
    return file_link(path, workspace.relative(path))


def _list_files_in(workspace: Workspace, directory: Path) -> JsonDict:
    if directory == workspace.root:
        return suggestion(text("List files"))
    return suggestion(text(f"List files in {workspace.relative(directory)}"))


def _after_help(topic: Topic, workspace: Workspace, support: SuggestionSupport) -> list[JsonDict]:
    entries = [suggestion(text("List files"))]
    try:
        best = interesting_files(workspace.list_dir("."), limit=1)
    except WorkspaceError:
        best = []
    entries.extend(suggestion(text("Show me "), _link(workspace, path)) for path in best)
    entries.append(suggestion(text("Count to 5")))
    if support.allows("image"):
        entries.append(suggestion(text("What is in this image?"), image(tiny_png_base64(), PNG_MIME)))
    return entries


def _after_listing(topic: Topic, workspace: Workspace, support: SuggestionSupport) -> list[JsonDict]:
    listing = topic.listing
    if listing is None:
        return []
    files = interesting_files(listing)
    if files:
        return [suggestion(text("Show me "), _link(workspace, path)) for path in files]
    subdirectories = [path for path in listing.entries if path in listing.directories][:2]
    if subdirectories:
        return [_list_files_in(workspace, path) for path in subdirectories]
    return [suggestion(text("What can you do?"))]


def _after_show(topic: Topic, workspace: Workspace, support: SuggestionSupport) -> list[JsonDict]:
    if topic.file is None:
        return []
    return [
        suggestion(text("Explain "), _link(workspace, topic.file)),
        _list_files_in(workspace, topic.file.parent),
    ]


def _after_explain(topic: Topic, workspace: Workspace, support: SuggestionSupport) -> list[JsonDict]:
    if topic.file is None:
        return []
    return [
        suggestion(text("Show me "), _link(workspace, topic.file)),
        _list_files_in(workspace, topic.file.parent),
    ]


def _after_count(topic: Topic, workspace: Workspace, support: SuggestionSupport) -> list[JsonDict]:
    follow_up = min(max(topic.count * 2, 5), 100)
    return [suggestion(text(f"Count to {follow_up}")), suggestion(text("What can you do?"))]


def _after_other(topic: Topic, workspace: Workspace, support: SuggestionSupport) -> list[JsonDict]:
    return [suggestion(text("List files")), suggestion(text("What can you do?"))]


_CANDIDATES = {
    TopicKind.HELP: _after_help,
    TopicKind.LISTED: _after_listing,
    TopicKind.SHOWN: _after_show,
    TopicKind.EXPLAINED: _after_explain,
    TopicKind.COUNTED: _after_count,
    TopicKind.MEDIA: _after_other,
    TopicKind.REFUSED: _after_other,
}
