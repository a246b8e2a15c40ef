"""Accessibility scans with axe-core, injected into the page under test.

axe-core is vendored for the tests only (`e2e/vendor/`, version in the file name); it is never served by
the app. The script is evaluated through the DevTools protocol, which the page's CSP does not govern (an
injected `<script>` tag would be blocked by it, as it should be).

Every impact fails a scan: critical, serious, moderate and minor alike. `assert_accessible` scans a state
in light and dark; the screenshot helpers call it at every state they picture, whether or not the run
takes pictures, so every state the browser tests show is scanned.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from playwright.sync_api import Page

AXE = Path(__file__).resolve().parents[2] / "e2e" / "vendor" / "axe-core-4.14.1.min.js"
EVERY_IMPACT = ("critical", "serious", "moderate", "minor")
SCHEMES: tuple[Literal["light", "dark"], ...] = ("light", "dark")
# The rules whose outcome depends on colours: all that can change between a light and a dark scheme.
COLOUR_RULES = ("color-contrast", "link-in-text-block")

# A digest of what a scan saw (the document, the viewport). The digests of every state scanned are kept on
# the page: the same state pictured in several schemes, scanned and then shot, or come back to after
# another (a style, a size, then the first again) is scanned once. A navigation forgets them.
_FINGERPRINT = """() => {
    const text = document.documentElement.outerHTML + '|' + innerWidth + 'x' + innerHeight;
    let hash = 0;
    for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
    return String(hash) + ':' + text.length;
}"""


def load_axe(page: Page) -> None:
    """Evaluate axe-core in the page, once per document."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.evaluate(f"() => {{ {AXE.read_text()}\n }}")


def violations(page: Page, *, rules: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
    """axe-core's violations of every impact on the page as it is now, by every rule axe runs by default
    or by `rules` alone."""
    load_axe(page)
    options: dict[str, Any] = {"resultTypes": ["violations"]}
    if rules is not None:
        options["runOnly"] = {"type": "rule", "values": list(rules)}
    result: dict[str, Any] = page.evaluate(
        "async (options) => await window.axe.run(document, options)", options
    )
    return [v for v in result["violations"] if v.get("impact") in EVERY_IMPACT]


def describe(found: list[dict[str, Any]]) -> str:
    """A readable summary for an assertion message: rule, impact and the first few offending nodes."""
    lines = []
    for v in found:
        targets = ", ".join(str(n.get("target")) for n in v.get("nodes", [])[:3])
        lines.append(f"{v['id']} ({v['impact']}): {v['help']} at {targets}")
    return "\n".join(lines)


def current_scheme(page: Page) -> Literal["light", "dark"]:
    dark = page.evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches")
    return "dark" if dark else "light"


def assert_accessible(page: Page, what: str) -> None:
    """No axe-core violation of any impact on the page as it is, in light and in dark.

    Every rule in light; in dark only the colour rules, the only ones a scheme changes. The scheme the
    page was in is restored, and a state already scanned as it is now is not scanned again.
    """
    fingerprint = page.evaluate(_FINGERPRINT)
    if page.evaluate("(value) => (window.__axeScanned || []).includes(value)", fingerprint):
        return
    was = current_scheme(page)
    try:
        for n, scheme in enumerate(SCHEMES):
            page.emulate_media(color_scheme=scheme)
            found = violations(page, rules=None if n == 0 else COLOUR_RULES)
            assert not found, f"{what} ({scheme}):\n{describe(found)}"
    finally:
        page.emulate_media(color_scheme=was)
    page.evaluate("(value) => { (window.__axeScanned ||= []).push(value); }", fingerprint)
