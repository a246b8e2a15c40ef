"""Screenshots for people to look at: every state the browser tests reach, at each size and scheme.

They are not assertions, and a run where nobody looks at them should not pay for them (about 230 shots,
some 16 CPU-s of a full run). So they are taken only when asked for: `make screenshots` (or
WEBCLIENT_SCREENSHOTS=1) writes them to e2e/artifacts/, and WEBCLIENT_UPDATE_SCREENSHOTS=1 also copies
them into docs/. Everything the tests check around a shot (states, sizes, schemes, axe scans) runs either
way: every picture is also an accessibility scan of its state, in both schemes, in every run.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from playwright.sync_api import Locator, Page

from tests.support.accessibility import assert_accessible

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "e2e" / "artifacts"
DOCS = ROOT / "docs"


def updating_docs() -> bool:
    return os.environ.get("WEBCLIENT_UPDATE_SCREENSHOTS") == "1"


def wanted() -> bool:
    """Whether this run takes screenshots (WEBCLIENT_SCREENSHOTS=1, or refreshing the ones in docs/)."""
    return os.environ.get("WEBCLIENT_SCREENSHOTS") == "1" or updating_docs()


def screenshot(page: Page, name: str, *, element: Locator | None = None) -> Path | None:
    """Save a screenshot under e2e/artifacts (and into docs/ when refreshing them), if this run takes any.

    `name` may hold a folder (`suggestions/files-chips`); `element` narrows the picture to one element.
    Returns the file written, or None when the run takes no screenshots. The page is scanned with
    axe-core first, in light and dark, whether or not the run takes screenshots.
    """
    assert_accessible(page, name)
    if not wanted():
        return None
    path = ARTIFACTS / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    if element is not None:
        element.screenshot(path=str(path))
    else:
        page.screenshot(path=str(path), full_page=False)
    if updating_docs():
        target = DOCS / f"{name}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    return path
