"""Accessibility scans with axe-core, injected into the page under test.

axe-core is vendored for the tests only (`e2e/vendor/`, version in the file name); it is never served by
the app. The script is evaluated through the DevTools protocol, which the page's CSP does not govern (an
injected `<script>` tag would be blocked by it, as it should be).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Page

AXE = Path(__file__).resolve().parents[2] / "e2e" / "vendor" / "axe-core-4.14.1.min.js"
BLOCKING = ("critical", "serious")
EVERY_IMPACT = ("critical", "serious", "moderate", "minor")
# The rules whose outcome depends on colours: all that can change between a light and a dark scheme.
COLOUR_RULES = ("color-contrast", "link-in-text-block")


def violations(
    page: Page, *, impacts: tuple[str, ...] = BLOCKING, rules: tuple[str, ...] | None = None
) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it is now, of the given impacts (critical and serious), by
    every rule axe runs by default or by `rules` alone."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.evaluate(f"() => {{ {AXE.read_text()}\n }}")
    options: dict[str, Any] = {"resultTypes": ["violations"]}
    if rules is not None:
        options["runOnly"] = {"type": "rule", "values": list(rules)}
    result: dict[str, Any] = page.evaluate(
        "async (options) => await window.axe.run(document, options)", options
    )
    return [v for v in result["violations"] if v.get("impact") in impacts]


def describe(found: list[dict[str, Any]]) -> str:
    """A readable summary for an assertion message: rule, impact and the first few offending nodes."""
    lines = []
    for v in found:
        targets = ", ".join(str(n.get("target")) for n in v.get("nodes", [])[:3])
        lines.append(f"{v['id']} ({v['impact']}): {v['help']} at {targets}")
    return "\n".join(lines)
