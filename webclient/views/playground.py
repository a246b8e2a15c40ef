"""The suggestions playground: a pasted update, read and shown exactly as a live session would.

The update goes through the protocol layer's `read_suggestions` (against the block types the designer
says were advertised), the domain's `SuggestionLedger` (the notices a session would show) and a
`SessionState`'s own transition; each preview is the page's own partials (`_composer_suggestions.html`,
`_ghost_text.html`) in a document of its own, at one width and in one colour scheme.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from webclient.acp.models import Suggestion
from webclient.acp.models.content import ContentPart, ResourceLinkPart, ResourcePart
from webclient.acp.suggestion_input import Candidate, InputError, read_input
from webclient.acp.suggestions import BASELINE_TYPES, OPTIONAL_TYPES, read_suggestions
from webclient.domain.state import SessionState
from webclient.domain.suggestions import SuggestionLedger, SuggestionPolicy
from webclient.views import region_models
from webclient.views.chips import chip_view
from webclient.views.render import environment

STYLES = ("chips", "list", "ghost")
LAYOUTS = {"desktop": 1280, "phone": 390}
SCHEMES = ("light", "dark")
# The optional block types a designer can say were advertised (both sides), by their capability field.
TYPE_FIELDS = {field: block for block, field in OPTIONAL_TYPES.items()}
# The previews show at most this many blocks of a suggestion, and a URI cut to this length (each preview
# repeats them twelve times: a thousand long links once made a response of hundreds of megabytes).
MAX_BLOCKS_SHOWN = 12
MAX_URI_SHOWN = 300
# A diagnostic's text past this is cut (it may quote an agent's URI).
MAX_DIAGNOSTIC_CHARS = 600


@dataclass(frozen=True)
class Diagnostic:
    kind: str  # skipped | hidden | link | auto-send | update | shown
    text: str
    index: int | None = None  # the suggestion it is about (0-based, in the list offered), if one


@dataclass(frozen=True)
class Preview:
    style: str
    layout: str
    scheme: str
    width: int
    document: str  # a whole HTML document, for an iframe's srcdoc


@dataclass(frozen=True)
class Result:
    candidates: tuple[Candidate, ...]
    picked: int
    state: SessionState
    diagnostics: tuple[Diagnostic, ...]
    previews: tuple[Preview, ...]


def allowed(fields: list[str]) -> frozenset[str]:
    """The block types a suggestion may use: text and resource_link, plus each optional type chosen."""
    return BASELINE_TYPES | {TYPE_FIELDS[f] for f in fields if f in TYPE_FIELDS}


@dataclass(frozen=True)
class Reading:
    """A pasted input read as a session would: the updates it holds, the one picked, the state it makes,
    what the previews may show of it (bounded), and the diagnostics."""

    candidates: tuple[Candidate, ...]
    picked: int
    state: SessionState
    shown: SessionState
    diagnostics: tuple[Diagnostic, ...]

    @property
    def marked(self) -> set[int]:
        """The suggestions (0-based) a diagnostic is about."""
        return {d.index for d in self.diagnostics if d.index is not None}


def read(text: str, fields: list[str], pick: int = 0, workspace: str = "") -> Reading:
    """Read `text` and take its `pick`-th suggestion update as a session in `workspace` would; raises
    InputError for unusable input."""
    candidates = read_input(text)
    if not 0 <= pick < len(candidates):
        raise InputError(f"there is no update {pick + 1}: the input holds {len(candidates)}")
    event = read_suggestions(candidates[pick].update, allowed(fields))
    outcome = SuggestionLedger(SuggestionPolicy(advertised=True)).receive(event)
    state = SessionState(workspace=workspace)
    if outcome.offered is not None:
        state.set_suggestions(outcome.offered)
    diagnostics = [Diagnostic("update" if event.malformed else "skipped", n) for n in outcome.notices]
    for index, suggestion in enumerate(state.suggestions):
        diagnostics.extend(_diagnose(index, suggestion, workspace))
    shown = SessionState(workspace=workspace)
    shown.set_suggestions(tuple(_bounded(s) for s in state.suggestions))
    for index, suggestion in enumerate(state.suggestions):
        if len(suggestion.parts) > MAX_BLOCKS_SHOWN:
            text = f"suggestion {index + 1} has {len(suggestion.parts):,} blocks; the previews show its first"
            diagnostics.append(Diagnostic("shown", f"{text} {MAX_BLOCKS_SHOWN}", index))
    bounded = tuple(dataclasses.replace(d, text=_cut(d.text, MAX_DIAGNOSTIC_CHARS)) for d in diagnostics)
    return Reading(tuple(candidates), pick, state, shown, bounded)


def play(text: str, fields: list[str], pick: int = 0, workspace: str = "") -> Result:
    """Read `text` and show its `pick`-th suggestion update as a session in `workspace` would; raises
    InputError for unusable input."""
    reading = read(text, fields, pick, workspace)
    previews = tuple(
        Preview(
            style,
            layout,
            scheme,
            width,
            mark(preview_document(reading.shown, style, scheme, layout), reading.marked),
        )
        for style in STYLES
        for layout, width in LAYOUTS.items()
        for scheme in SCHEMES
    )
    return Result(reading.candidates, pick, reading.state, reading.diagnostics, previews)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _bounded(suggestion: Suggestion) -> Suggestion:
    """What the previews show of `suggestion`: its first blocks, long URIs cut."""
    parts = tuple(_short_uri(p) for p in suggestion.parts[:MAX_BLOCKS_SHOWN])
    return dataclasses.replace(suggestion, parts=parts)


def _short_uri(part: ContentPart) -> ContentPart:
    if isinstance(part, ResourceLinkPart | ResourcePart) and len(part.uri) > MAX_URI_SHOWN:
        return part.model_copy(update={"uri": _cut(part.uri, MAX_URI_SHOWN)})
    return part


# A suggestion's outer element in the page's partials: the chip (not its buttons) and the ghost entry.
_INDEXED = re.compile(r'(class="(?:chip(?: [^"]*)?|ghost-entry)"[^>]*?data-index="(\d+)")')


def mark(document: str, marked: set[int]) -> str:
    """The preview with each suggestion a diagnostic is about marked (`data-diagnosed`, its number),
    which playground.css outlines and labels."""
    if not marked:
        return document
    return _INDEXED.sub(
        lambda m: (
            m.group(1) + (f' data-diagnosed="{int(m.group(2)) + 1}"' if int(m.group(2)) in marked else "")
        ),
        document,
    )


def _diagnose(index: int, suggestion: Suggestion, workspace: str) -> list[Diagnostic]:
    chip = chip_view(suggestion, workspace)
    name = f"suggestion {index + 1}"
    found = []
    if chip.hidden_count:
        plural = "s" if chip.hidden_count != 1 else ""
        found.append(
            Diagnostic(
                "hidden", f"{name} has {chip.hidden_count} hidden character{plural} (shown as ⟨…⟩)", index
            )
        )
    found.extend(
        Diagnostic("link", f"{name} links a file: {warning}", index) for warning in chip.link_warnings
    )
    if not chip.auto_eligible:
        reasons = [
            reason
            for reason, applies in (
                ("it has attachments", bool(chip.attachments)),
                ("it has hidden characters", bool(chip.hidden_count)),
                ("its text is longer than a chip shows", chip.truncated or chip.oversized),
            )
            if applies
        ]
        found.append(
            Diagnostic(
                "auto-send", f"auto-send would refuse {name}: {', '.join(reasons) or 'not eligible'}", index
            )
        )
    return found


def preview_document(state: SessionState, style: str, scheme: str, layout: str) -> str:
    """One preview: the page's suggestion partials as the conversation page includes them."""
    template = environment().get_template("playground/preview.html")
    return template.render(
        suggestions=region_models.suggestions(state, style),
        ghost=region_models.ghost(state),
        suggestion_style=style,
        scheme=scheme,
        layout=layout,
        oob=False,
    )


def page(result: Result | None, *, text: str, fields: list[str], error: str | None) -> str:
    template = environment().get_template("playground/page.html")
    return template.render(
        result=result, text=text, fields=fields, error=error, type_fields=list(TYPE_FIELDS), styles=STYLES
    )
