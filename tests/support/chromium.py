"""Which Chromium the browser tests and the benchmark's test run drive: the system's, never a download."""

from __future__ import annotations

import os
import shutil


def chromium_path() -> str | None:
    """WEBCLIENT_CHROMIUM if set, else the first Chromium on PATH, Debian's headless shell first (the same
    engine at a third of the CPU per page; scripts/ensure-browser installs it); None if there is none."""
    candidates = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome")
    for candidate in (os.environ.get("WEBCLIENT_CHROMIUM"), *candidates):
        if candidate and (found := shutil.which(candidate)):
            return found
    return None
