"""The page's stylesheets and scripts, served as one file of each kind.

The sources stay one file per concern in `static/`; the page links one bundle of each kind instead, so a
new tab makes four requests rather than seventeen. A bundle's name carries a digest of its content: the
browser may keep it for good (a reload, or another session's page, fetches nothing), and a changed file
gives the bundle a new name. Bundles are built from the files as they are when first asked for, once per
process: restart the server to see an edited file.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from typing import Literal

from webclient.views.paths import STATIC_DIR

Kind = Literal["css", "js"]

# In the order the page applies them: later rules override earlier ones, and the scripts after htmx use it.
# The page's own scripts share the `window.webclient` namespace: keymap.js and calls.js, which the others
# register into and call, come first, and each module comes after the modules it reads at load time.
STYLESHEETS = (
    "app.css",
    "conversation.css",
    "controls.css",
    "suggestions.css",
    "page.css",
    "presenter.css",
    "agents.css",
    "inspector.css",
    "playground.css",
    "study.css",
)
# Stylesheets of pages that stand alone, outside the app and its bundle: the HTML report of
# `webclient check` (webclient/check/html.py), which carries them inline.
STANDALONE = ("check_report.css",)
SCRIPTS = (
    "htmx-2.0.11.min.js",
    "htmx-ext-ws-2.0.4.js",
    "keymap.js",
    "calls.js",
    "sign_in_key.js",
    "app.js",
    "attach.js",
    "suggestion_policy.js",
    "composer.js",
    "suggestion_style.js",
    "suggestion_focus.js",
    "suggestion_place.js",
    "suggestion_fit.js",
    "suggestion_offer.js",
    "auto_send.js",
    "suggestion_keys.js",
    "turn.js",
    "prompt_queue.js",
    "inspector.js",
    "header_fit.js",
    "presenter.js",
    "slash.js",
    "page.js",
    "live_sync.js",
    "stream.js",
    "playground.js",
    "study.js",
    "preset_lab.js",
)
URL_PREFIX = "/static/bundles/"
# The name changes with the content, so the content under a name never does.
CACHE_FOREVER = "public, max-age=31536000, immutable"

_SOURCES: dict[Kind, tuple[str, ...]] = {"css": STYLESHEETS, "js": SCRIPTS}
_MEDIA_TYPES: dict[Kind, str] = {"css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8"}
# A script may end without a semicolon (`})()`); the next one's `(function` would then call its result.
_SEPARATORS: dict[Kind, str] = {"css": "\n", "js": "\n;\n"}


@dataclass(frozen=True)
class Bundle:
    """One kind's files, joined in order, under a name that carries their digest."""

    file_name: str
    media_type: str
    body: bytes

    @property
    def url(self) -> str:
        return URL_PREFIX + self.file_name


def url(kind: Kind) -> str:
    """Where the page links the bundle of `kind`."""
    return bundle(kind).url


def find(file_name: str) -> Bundle | None:
    """The bundle served under `file_name`, or None for any other name (an outdated digest included)."""
    return next((b for b in map(bundle, _SOURCES) if b.file_name == file_name), None)


@cache
def bundle(kind: Kind) -> Bundle:
    """The bundle of `kind`, built from the files in `static/` at the first call of this process."""
    # A comment naming each file, valid in CSS and JavaScript alike, keeps the bundle readable.
    parts = [f"/* {name} */\n" + (STATIC_DIR / name).read_text(encoding="utf-8") for name in _SOURCES[kind]]
    body = _SEPARATORS[kind].join(parts).encode()
    digest = hashlib.sha256(body).hexdigest()[:16]
    return Bundle(f"page-{digest}.{kind}", _MEDIA_TYPES[kind], body)
