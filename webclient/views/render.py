"""State to HTML: the full page and the fragments the live layer pushes over the WebSocket.

Every fragment comes from the same `_`-prefixed partial the full page includes, so a reconnecting tab and
a live one see identical markup. Jinja autoescapes everything; agent Markdown goes through `markdown.py`.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from webclient.acp.models import DISPLAYABLE_IMAGE_TYPES, ContentPart
from webclient.domain.picker import FoundFile
from webclient.domain.state import Aspect, Item, SessionState
from webclient.views import hidden_chars
from webclient.views.chips import approx_size, chip_view, uri_name
from webclient.views.diff import DiffLine, unified
from webclient.views.markdown import render_markdown
from webclient.views.markdown_stream import Delta, Split, split, streamed_text
from webclient.views.paths import TEMPLATES_DIR
from webclient.views.regions import REGIONS, is_region


def _static_url(name: str) -> str:
    return f"/static/{name}"


def _diff_lines(content: Any) -> list[DiffLine]:
    """A tool call's ``diff`` content (models.ToolCallContent) as unified-diff lines to colour."""
    return unified(content.path or "", content.old_text, content.new_text or "")


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES_DIR)),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=False,
        lstrip_blocks=False,
    )
    env.filters["markdown"] = render_markdown
    env.filters["streamed_split"] = _streamed_split
    env.filters["safe_image_mime"] = lambda mime: str(mime).lower() in DISPLAYABLE_IMAGE_TYPES
    env.filters["hidden_segments"] = hidden_chars.segments
    env.filters["approx_size"] = approx_size
    env.filters["uri_name"] = uri_name
    env.globals["static"] = _static_url
    env.globals["chip_view"] = chip_view
    # Readable JSON for <pre> blocks; autoescaping makes it safe (tojson is for attributes and scripts).
    env.filters["pretty_json"] = lambda value: json.dumps(value, indent=2, ensure_ascii=False, default=repr)
    env.globals["diff_lines"] = _diff_lines
    env.globals["unified_diff"] = unified
    return env


def page(state: SessionState, *, ws_path: str, session_path: str = "/") -> str:
    """The whole page for one session."""
    return (
        environment()
        .get_template("index.html")
        .render(state=state, ws_path=ws_path, session_path=session_path, oob=False)
    )


def item(state: SessionState, entry: Item, *, oob: bool = False) -> str:
    """One transcript entry; with `oob`, marked to replace the element with the same id."""
    return _partial("_item.html", state=state, item=entry, oob=oob)


def message_delta(entry_id: str, change: Delta) -> str:
    """A streamed answer's newly finished blocks (appended to those the tab has) and its new open tail."""
    tail = _partial("_message_tail.html", item_id=entry_id, tail=change.tail, oob=True)
    if not change.added:
        return tail
    added = Markup('<div hx-swap-oob="beforeend:#{}-done">{}</div>').format(entry_id, change.added)
    return str(added) + tail


def _streamed_split(entry: Item) -> Split | None:
    text = streamed_text(entry)
    return None if text is None else split(text)


def append_items(html: str) -> str:
    """Wrap rendered entries so htmx appends them to the transcript."""
    return str(Markup('<div hx-swap-oob="beforeend:#transcript">{}</div>').format(Markup(html)))


def snapshot(state: SessionState) -> str:
    """Everything a freshly connected tab needs, as out-of-band swaps."""
    parts = [_partial("_transcript.html", state=state, oob=True)]
    parts.extend(region(state, key) for key in REGIONS)
    return "".join(parts)


def region(state: SessionState, key: str) -> str:
    """A region by its change key (an `Aspect`), marked for an out-of-band swap."""
    if not is_region(key):
        raise KeyError(key)
    return "".join(_partial(name, state=state, oob=True) for name in REGIONS[Aspect(key)])


def navigate(path: str) -> str:
    """Tell a tab to open another page of ours (after it opened, loaded or closed a session)."""
    return _partial("_navigate.html", href=path, oob=True)


def file_picker(found: list[FoundFile], query: str) -> str:
    """The `@` picker's list of matching workspace files, for the one tab that asked."""
    return _partial("_file_picker.html", found=found, query=query, open=True, oob=True)


def composer_pill(part: ContentPart, block: dict[str, Any]) -> str:
    """One more attachment for the composer, appended to the ones it holds."""
    pill = _partial("_composer_pill.html", part=part, block=json.dumps(block))
    return str(Markup('<div hx-swap-oob="beforeend:#composer-attachments">{}</div>').format(Markup(pill)))


def composer_attachments(parts: list[ContentPart], wire: list[dict[str, Any]]) -> str:
    """The composer's attachment pills (replacing any it held), each carrying its block for sending."""
    pills = list(zip(parts, [json.dumps(block) for block in wire], strict=True))
    return _partial("_composer_attachments.html", pills=pills, oob=True)


def _partial(name: str, **context: Any) -> str:
    return environment().get_template(name).render(**context)
