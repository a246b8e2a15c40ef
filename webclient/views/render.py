"""State to HTML: the full page and the fragments the live layer pushes over the WebSocket.

Every fragment comes from the same `_`-prefixed partial the full page includes, so a reconnecting tab and
a live one see identical markup. Jinja autoescapes everything; agent Markdown goes through `markdown.py`.
"""

from __future__ import annotations

import json
import time
from functools import lru_cache
from typing import Any

from jinja2 import Environment, FileSystemLoader, Undefined, select_autoescape
from markupsafe import Markup, escape

from webclient.acp.models import DISPLAYABLE_IMAGE_TYPES
from webclient.domain.items import Item, ToolCallItem
from webclient.domain.picker import FoundFile
from webclient.domain.prompt import Held
from webclient.domain.state import Aspect, SessionState
from webclient.text_controls import strip_controls
from webclient.views import assets, entry_models, hidden_chars, region_models
from webclient.views.chips import approx_size, link_warnings, uri_name
from webclient.views.diff import diff_view, patch_view
from webclient.views.full_texts import shown_text
from webclient.views.markdown import render_markdown
from webclient.views.markdown_stream import Split, split, streamed_text
from webclient.views.notices import INSTALL_LINES, command_not_found, has_detail, plain_text
from webclient.views.paths import TEMPLATES_DIR
from webclient.views.regions import REGIONS, is_region, partials
from webclient.views.terminal import terminal_text
from webclient.views.tool_text import keeps_lines
from webclient.views.workspace_paths import shown_path, shown_uri


def _static_url(name: str) -> str:
    return f"/static/{name}"


def compact_count(n: int) -> str:
    """A count in at most four characters or so: 950, 12.3k, 200k, 1.5M."""
    for limit, suffix in ((1_000_000, "M"), (1_000, "k")):
        if n >= limit:
            return f"{n / limit:.1f}".removesuffix(".0") + suffix
    return str(n)


def local_time(when: float) -> str:
    """A moment (seconds since the epoch) as the server's clock reads it, to the minute."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(when))


def clock_time(when: float) -> str:
    """A moment (seconds since the epoch) as the server's clock reads it: hours and minutes."""
    return time.strftime("%H:%M", time.localtime(when))


@lru_cache(maxsize=1)
def environment() -> Environment:
    """The environment every page and fragment renders with (templates loaded once per server)."""
    return build_environment()


def build_environment(undefined: type[Undefined] = Undefined) -> Environment:
    """A template environment with our filters and helpers; `undefined` is what a missing name gives
    (the contract test renders with `StrictUndefined`, so a partial that reaches past its model fails).

    The globals are helpers of a value (a part, a notice, a diff), never the session: a region's partial
    gets what it shows from its view model (`region_models.py`, `entry_models.py`).
    """
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES_DIR)),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=False,
        lstrip_blocks=False,
        undefined=undefined,
        # Templates do not change under a running server (restart it after editing one); checking would
        # stat every partial a fragment includes, at each of the many renders a streamed answer makes.
        auto_reload=False,
    )
    env.filters["markdown"] = render_markdown
    env.filters["streamed_split"] = _streamed_split
    env.filters["safe_image_mime"] = lambda mime: str(mime).lower() in DISPLAYABLE_IMAGE_TYPES
    env.filters["hidden_segments"] = hidden_chars.segments
    env.filters["approx_size"] = approx_size
    env.filters["uri_name"] = uri_name
    env.filters["shown_path"] = shown_path
    env.filters["shown_uri"] = shown_uri
    env.filters["terminal_text"] = terminal_text
    env.filters["plain_text"] = strip_controls
    env.filters["local_time"] = local_time
    env.filters["clock_time"] = clock_time
    env.filters["compact_count"] = compact_count
    env.globals["keeps_lines"] = keeps_lines
    env.globals["static"] = _static_url
    env.globals["bundle_url"] = assets.url
    env.globals["link_warnings"] = link_warnings
    # Readable JSON for <pre> blocks; autoescaping makes it safe (tojson is for attributes and scripts).
    env.filters["pretty_json"] = lambda value: json.dumps(value, indent=2, ensure_ascii=False, default=repr)
    env.globals["diff_view"] = diff_view
    env.globals["shown_text"] = shown_text
    env.globals["patch_view"] = patch_view
    env.globals["notice_plain"] = plain_text
    env.globals["notice_has_detail"] = has_detail
    env.globals["command_not_found"] = command_not_found
    env.globals["install_lines"] = INSTALL_LINES
    return env


def page(
    state: SessionState,
    *,
    ws_path: str,
    session_path: str = "/",
    suggestion_style: str = "chips",
    present: bool = False,
) -> str:
    """The whole page for one session; `suggestion_style` is the presentation a new browser starts with,
    `present` whether it starts in presenter mode (each browser may switch, and keeps its choice)."""
    return (
        environment()
        .get_template("index.html")
        .render(
            region_models.all_models(state, style=suggestion_style),
            transcript=entry_models.transcript(state),
            title=state.title,
            kept=region_models.kept(state),
            ws_path=ws_path,
            session_path=session_path,
            suggestion_style=suggestion_style,
            present=present,
            oob=False,
        )
    )


def error_page(status: int, title: str, what_happened: str, what_to_do: str, *, renews: bool = False) -> str:
    """A page for a refused request, styled like the app (our own text only); with `renews`, its script
    first tries to get the sign-in cookie set again from the key the origin's storage keeps."""
    return _partial(
        "error.html",
        status=status,
        title=title,
        what_happened=what_happened,
        what_to_do=what_to_do,
        renews=renews,
    )


def item(state: SessionState, entry: Item, *, oob: bool = False, local: bool = False) -> str:
    """One transcript entry; with `oob`, marked to replace the element with the same id; with `local`, a
    notice for one tab only (`data-local`), not an entry of the session."""
    return _partial("_item.html", row=entry_models.row(state, entry), oob=oob, local=local)


def message_added(entry_id: str, added: Markup) -> str:
    """A streamed answer's newly finished blocks, appended to those the tab has."""
    return str(Markup('<div hx-swap-oob="beforeend:#{}-done">{}</div>').format(entry_id, added))


def message_tail(entry_id: str, tail: Markup) -> str:
    """A streamed answer's open tail, replacing the one the tab shows."""
    return _partial("_message_tail.html", item_id=entry_id, tail=tail, oob=True)


def raw_text(text: str, *, code: bool) -> Markup:
    """Text of an open block not yet rendered as Markdown: escaped, kept as written, set as code inside a
    fenced code block."""
    # Plain concatenation: this runs for every chunk of a long block, and `Markup.format` costs more than
    # the escaping itself.
    kind = "md-raw md-raw-code" if code else "md-raw"
    return Markup(f'<span class="{kind}">{escape(text)}</span>')


def message_raw(entry_id: str, raw: Markup) -> str:
    """Raw text appended to a streamed answer's open tail (a later render of the tail replaces it)."""
    return f'<div hx-swap-oob="beforeend:#{escape(entry_id)}-tail">{raw}</div>'


def _streamed_split(entry: Item) -> Split | None:
    text = streamed_text(entry)
    return None if text is None else split(text)


def tool_content_added(state: SessionState, item: ToolCallItem, start: int) -> str:
    """The entries of a tool call's content from `start` on, appended to those its card shows."""
    added = _partial("_tool_content_added.html", row=entry_models.row(state, item), start=start)
    return f'<div hx-swap-oob="beforeend:#{escape(item.id)}-content">{added}</div>'


def append_items(html: str) -> str:
    """Wrap rendered entries so htmx appends them to the transcript."""
    return str(Markup('<div hx-swap-oob="beforeend:#transcript">{}</div>').format(Markup(html)))


def snapshot(state: SessionState) -> str:
    """Everything a freshly connected tab needs, as out-of-band swaps."""
    parts = [_partial("_transcript.html", transcript=entry_models.transcript(state), oob=True)]
    # A partial that shows several aspects (the welcome) goes once.
    composer = state.kept is None  # a stored copy's page has no composer
    names = dict.fromkeys(name for key in REGIONS for name in partials(key, composer=composer))
    parts.extend(_region(name, state) for name in names)
    return "".join(parts)


def region(state: SessionState, key: str) -> str:
    """A region by its change key (an `Aspect`), marked for an out-of-band swap."""
    if not is_region(key):
        raise KeyError(key)
    names = partials(Aspect(key), composer=state.kept is None)
    return "".join(_region(name, state) for name in names)


def _region(name: str, state: SessionState) -> str:
    """A region's partial from its model alone, marked for an out-of-band swap."""
    key, model = region_models.model(name, state)
    return _partial(name, **{key: model, "oob": True})


def navigate(path: str, *, draft: str | None = None) -> str:
    """Tell a tab to open another page of ours (after it opened, loaded or closed a session); `draft`
    goes into that page's composer, unsent (the page keeps it as it keeps what the user types)."""
    return _partial("_navigate.html", href=path, draft=draft, oob=True)


def file_picker(found: list[FoundFile], query: str) -> str:
    """The `@` picker's list of matching workspace files, for the one tab that asked."""
    return _partial("_file_picker.html", found=found, query=query, open=True, oob=True)


def composer_pill(held: Held, workspace: str = "") -> str:
    """One more attachment for the composer, appended to the ones it holds; a file's token goes into the
    text where the user typed `@`. `workspace` (the session's directory) is where its file should be."""
    pill = _partial("_composer_pill.html", held=held, insert=held.inline, workspace=workspace)
    return str(Markup('<div hx-swap-oob="beforeend:#composer-attachments">{}</div>').format(Markup(pill)))


def composer_attachments(held: list[Held], workspace: str = "") -> str:
    """The composer's attachment pills (replacing any it held), each naming its server-held block by id;
    `workspace` as for `composer_pill`."""
    return _partial("_composer_attachments.html", pills=held, oob=True, workspace=workspace)


def _partial(name: str, **context: Any) -> str:
    return environment().get_template(name).render(**context)
