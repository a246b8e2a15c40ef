"""Browser tests: a real server with a real agent, driven through a real Chromium by Playwright.

The browser is the system's Chromium (Debian's `chromium`, or WEBCLIENT_CHROMIUM); Playwright's own
browser download is not needed. Screenshots of key states go to e2e/artifacts/ and, for the README,
to docs/ when WEBCLIENT_UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Playwright, sync_playwright

from tests.live import LiveServer, run_server

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
DOCS = Path(__file__).resolve().parent.parent / "docs"
# Flags a headless Chromium needs on a locked-down machine with no network beyond loopback.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    for candidate in (os.environ.get("WEBCLIENT_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if candidate and (found := shutil.which(candidate)):
            return found
    return None  # let Playwright use a browser it installed itself, if any


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
    yield browser
    browser.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


@pytest.fixture
def e2e_workspace(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / "src").mkdir(parents=True)
    (root / "README.md").write_text("# Shop\n\nA tiny shop service used in the webclient demo.\n")
    (root / "src" / "cart.py").write_text(
        '"""Shopping cart."""\n\n\nclass Cart:\n'
        "    def __init__(self) -> None:\n        self.items: list[str] = []\n\n"
        "    def add(self, item: str) -> None:\n        self.items.append(item)\n"
    )
    (root / "src" / "pricing.py").write_text(
        '"""Prices."""\n\n\ndef total(prices: list[float]) -> float:\n    return sum(prices)\n'
    )
    (root / "pyproject.toml").write_text('[project]\nname = "shop"\nversion = "1.0"\n')
    return root


@pytest.fixture
def server(e2e_workspace: Path, tmp_path: Path) -> Iterator[LiveServer]:
    with run_server(cwd=e2e_workspace, env={"WEBCLIENT_DEMO_STATE_DIR": str(tmp_path / "state")}) as live:
        yield live


def sign_in(page: Page, server: LiveServer) -> None:
    """Open the app as its user does: the printed link in the first browser context, and in every later
    one the cookie that link gave (the token signs in only once per start)."""
    if server.signed_in is None:
        page.goto(server.url)
        # The token left the address bar (the page may already have moved on to its session's path).
        page.wait_for_url(re.compile(r"^[^?]*$"))
        [cookie] = [c for c in page.context.cookies() if c["name"].startswith("webclient_")]
        server.signed_in = f"{cookie['name']}={cookie['value']}"
        return
    name, value = server.signed_in.split("=", 1)
    page.context.add_cookies([{"name": name, "value": value, "url": server.base + "/"}])
    page.goto(server.base + "/")


def screenshot(page: Page, name: str) -> Path:
    """Save a screenshot for humans: always under e2e/artifacts, and into docs/ when asked to."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    if os.environ.get("WEBCLIENT_UPDATE_SCREENSHOTS") == "1":
        DOCS.mkdir(exist_ok=True)
        shutil.copy(path, DOCS / f"{name}.png")
    return path
