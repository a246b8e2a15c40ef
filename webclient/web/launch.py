"""Opening the user's browser without the sign-in token in any command line.

`webbrowser.open(url)` starts the browser with the URL as an argument, and every local user can read
a process's arguments (`ps`, /proc/PID/cmdline): another user could take the token and sign in first,
and since the token is exchanged once, the user's own browser would then be refused. As Jupyter does,
the browser is opened on a file only the user can read (mode 0600) that redirects to the URL. The file
is removed two minutes later (a browser reads it as it opens) or when the server stops, whichever comes
first. The printed URL is the same one, for a user who copies it.
"""

from __future__ import annotations

import contextlib
import html
import os
import tempfile
import threading
import webbrowser
from pathlib import Path

KEPT_SECONDS = 120.0


def redirect_file(url: str) -> Path:
    """A new file, readable by the user only, that sends a browser opening it on to `url`."""
    descriptor, name = tempfile.mkstemp(prefix="webclient-open-", suffix=".html")  # mode 0600
    quoted = html.escape(url, quote=True)
    page = (
        '<!doctype html><html><head><meta charset="utf-8">'
        f'<meta http-equiv="refresh" content="0;url={quoted}"><title>webclient</title></head>'
        f'<body><p><a href="{quoted}">Open webclient</a></p></body></html>\n'
    )
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write(page)
    return Path(name)


def open_browser(url: str) -> Path:
    """Open the user's browser on `url` through a `redirect_file`, so the URL is in no command line;
    the file, which `remove` (or a timer) removes."""
    path = redirect_file(url)
    timer = threading.Timer(KEPT_SECONDS, remove, args=(path,))
    timer.daemon = True
    timer.start()
    webbrowser.open(path.as_uri())
    return path


def remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()
