"""How one suggestion shows as a chip: its text cut for display, its attachments, its warnings.

Computed once per chip so the templates stay declarative; pure, no HTML.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

from webclient.acp.models import ContentPart, ResourceLinkPart, ResourcePart, Suggestion, TextPart
from webclient.domain.prompt import composer_text
from webclient.domain.suggestions import SHOWN_LIMIT
from webclient.views import hidden_chars
from webclient.views.diff import text_key
from webclient.views.workspace_paths import inside, shown_path

# A chip shows this many characters of its text, then an explicit "show all (+N characters)" expander.
CHIP_TEXT_LIMIT = 160
# The most characters a chip holds at all, expanded (the domain's rule: past it, a suggestion is oversized).
CHIP_SHOWN_LIMIT = SHOWN_LIMIT


@dataclass(frozen=True)
class ChipPiece:
    """One piece of a chip's prompt in order: text (`text` set) or a reference to attachment `ref`."""

    text: str | None = None
    ref: int = -1


@dataclass(frozen=True)
class ChipView:
    """What one chip shows, computed once so the template stays declarative.

    `head` is shown at once; `tail` (long text only) is `extra_chars` characters long and shows when the
    suggestion is expanded, which its first click does (`truncated`): nothing is sent unseen.
    `composer_text` is what Edit and Tab put into the composer: the text without hidden characters (so
    what the user then sees is what is sent), each other block as an inline `⟦name⟧` token where it stands.
    """

    label: str
    head: tuple[ChipPiece, ...]
    tail: tuple[ChipPiece, ...]
    extra_chars: int
    attachments: tuple[ContentPart, ...]
    hidden_count: int
    composer_text: str
    auto_eligible: bool
    # What a file link hides: a name that says one file while its URI says another, or a file outside
    # the workspace. Warned about like hidden characters, and never auto-sent.
    link_warnings: tuple[str, ...] = ()
    unshown_chars: int = 0  # characters of text past `CHIP_SHOWN_LIMIT`, not in the chip at all
    full_text_key: str = ""  # names the whole text for its download (`diff.text_key`), when oversized

    @property
    def oversized(self) -> bool:
        """Too long to show in full anywhere in the page: not sendable from the chip, nor put in the
        composer; its whole text is a download."""
        return self.unshown_chars > 0

    @property
    def truncated(self) -> bool:
        """Whether the text is not all shown at first: such a suggestion expands before it can be sent."""
        return bool(self.tail)

    @property
    def short_label(self) -> str:
        """The accessible name: the part shown before expanding, as shown (the whole text is the chip's
        description), so a long suggestion's name stays short and still matches what is on screen."""
        if not self.truncated:
            return self.label
        shown = []
        for piece in self.head:
            if piece.text is not None:
                shown.append(_visible(piece.text))
            else:
                shown.append(_attachment_name(self.attachments[piece.ref]))
        return "".join(shown).strip() + " …"

    @property
    def pieces(self) -> tuple[ChipPiece, ...]:
        return self.head + self.tail


def chip_view(suggestion: Suggestion, workspace: str = "", limit: int = CHIP_TEXT_LIMIT) -> ChipView:
    """What `suggestion` shows; `workspace` (the session's directory, if known) is where its files
    should be."""
    parts, cut = _bounded(suggestion.parts)
    head: list[ChipPiece] = []
    tail: list[ChipPiece] = []
    attachments: list[ContentPart] = []
    budget = limit
    extra = 0
    for part in parts:
        if isinstance(part, TextPart):
            # Once the text is cut, everything after the cut belongs to the part shown on expanding.
            shown, rest = _split_text(part.text, budget) if not tail else ("", part.text)
            budget -= len(shown)
            extra += len(rest)
            if shown:
                head.append(ChipPiece(text=shown))
            if rest:
                tail.append(ChipPiece(text=rest))
        else:
            (tail if tail else head).append(ChipPiece(ref=len(attachments)))
            attachments.append(part)
    hidden = sum(hidden_chars.count_hidden(s) for s in _visible_strings(parts))
    warnings = tuple(w for part in attachments for w in link_warnings(part, workspace))
    return ChipView(
        label=_label(parts),
        head=tuple(head),
        tail=tuple(tail),
        extra_chars=extra,
        attachments=tuple(attachments),
        hidden_count=hidden,
        composer_text="" if cut else composer_text(parts, hidden_chars.strip_hidden),
        # Auto-send only what needs no second look and is on screen in full: short plain text, no
        # attachments, no hidden characters.
        auto_eligible=not attachments and hidden == 0 and not tail and not cut,
        unshown_chars=cut,
        full_text_key=text_key(_text_of(suggestion.parts)) if cut else "",
        link_warnings=warnings,
    )


def _bounded(parts: tuple[ContentPart, ...]) -> tuple[tuple[ContentPart, ...], int]:
    """The parts with their text cut to `CHIP_SHOWN_LIMIT` characters in all, and how many were cut."""
    budget, cut = CHIP_SHOWN_LIMIT, 0
    kept: list[ContentPart] = []
    for part in parts:
        if isinstance(part, TextPart):
            if len(part.text) > budget:
                cut += len(part.text) - budget
                if not budget:
                    continue
                part = TextPart(text=part.text[:budget])
            budget -= len(part.text)
        kept.append(part)
    return tuple(kept), cut


def _text_of(parts: tuple[ContentPart, ...]) -> str:
    return "".join(p.text for p in parts if isinstance(p, TextPart))


def link_warnings(part: ContentPart, workspace: str = "") -> list[str]:
    """Why a file link may not be what it says: its name is not the file its URI names, or that file lies
    outside `workspace` (when given). Empty for a link that says what it is, and for any other block."""
    if not isinstance(part, ResourceLinkPart):
        return []
    found: list[str] = []
    target = urlsplit(part.uri)
    path = PurePosixPath(unquote(target.path)) if target.scheme == "file" else None
    named = part.name.strip().lstrip("@")
    if path is not None:
        if named not in {path.name, shown_path(str(path), workspace), str(path)}:
            found.append(f"it is named {part.name} but points to {path}")
        if not inside(path, workspace):
            found.append(f"{path} is outside the workspace")
    elif named != uri_name(part.uri):
        found.append(f"it is named {part.name} but points to {part.uri}")
    return found


def _split_text(text: str, budget: int) -> tuple[str, str]:
    """Cut `text` after at most `budget` characters, at a space when one is near, never in a hidden run; a
    line break always cuts, since a collapsed suggestion shows one line."""
    newline = text.find("\n")
    if 0 <= newline < budget:
        return text[:newline], text[newline:]
    if len(text) <= budget:
        return text, ""
    if budget <= 0:
        return "", text
    cut = budget
    space = text.rfind(" ", max(0, budget - 40), budget)
    if space > 0:
        cut = space + 1
    while 0 < cut < len(text) and hidden_chars.is_hidden(text[cut - 1]) and hidden_chars.is_hidden(text[cut]):
        cut -= 1  # keep a run of hidden characters together, so its marker stays whole
    return text[:cut], text[cut:]


def _visible_strings(parts: tuple[ContentPart, ...]) -> list[str]:
    strings: list[str] = []
    for part in parts:
        if isinstance(part, TextPart):
            strings.append(part.text)
        elif isinstance(part, ResourceLinkPart):
            strings.extend(s for s in (part.name, part.title, part.uri) if s)
        elif isinstance(part, ResourcePart):
            strings.extend(s for s in (part.uri, part.text) if s)
    return strings


def approx_size(data: str) -> str:
    """The decoded size of base64 `data`, for a caption."""
    size = len(data) * 3 // 4 - data[-2:].count("=")
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / 1024 / 1024:.1f} MB"


def uri_name(uri: str) -> str:
    """The last path segment of a URI: the name an embedded resource is shown under."""
    name = uri.rstrip("/").rsplit("/", 1)[-1]
    return name or uri


def _label(parts: tuple[ContentPart, ...]) -> str:
    """The chip's accessible name: its whole prompt in order as the chip shows it (hidden characters as
    their markers, each attachment by the name shown where it stands), so the name matches what is seen.
    The attachments' details are the chip's description."""
    return "".join(
        _visible(part.text) if isinstance(part, TextPart) else _attachment_name(part) for part in parts
    ).strip()


def _attachment_name(part: ContentPart) -> str:
    if isinstance(part, ResourceLinkPart):
        return _visible(part.name)
    if isinstance(part, ResourcePart):
        return _visible(uri_name(part.uri))
    return f"[{part.kind}]"


def _visible(text: str) -> str:
    return "".join(f"⟨{seg.label}⟩" if seg.hidden else seg.text for seg in hidden_chars.segments(text))
