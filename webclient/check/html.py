"""The HTML report: one page that works offline, in the page's look, under a strict CSP.

It has no script, and its one stylesheet (the page's tokens and base, then the report's own) sits inline,
allowed by its hash in the page's own Content-Security-Policy: nothing inline runs or styles without it.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from markupsafe import Markup

from webclient import __version__
from webclient.check.hints import EXAMPLES, FOLD_LINES, fold, whole
from webclient.check.recorder import WireLine
from webclient.check.report import QUOTED_LINES, Report, quote
from webclient.check.rules import Rule, Verdict
from webclient.views.assets import STANDALONE
from webclient.views.paths import STATIC_DIR
from webclient.views.render import environment

STYLESHEETS = ("app.css", *STANDALONE)


def write_html(report: Report) -> str:
    # Our own files, not agent input: safe as the content of <style>, where escaping would break CSS.
    style = "\n".join((STATIC_DIR / name).read_text(encoding="utf-8") for name in STYLESHEETS)
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()

    def quotes(verdict: Verdict) -> list[str]:
        return [quote(w) for n in verdict.lines[:QUOTED_LINES] if (w := report.line(n)) is not None]

    def quote_json(line: dict[str, Any]) -> str:
        return quote(WireLine(**line))

    def example(rule: Rule) -> str:
        return fold(EXAMPLES[rule.id])

    template = environment().get_template("check/report.html")
    return template.render(
        report=report,
        rules=report.rules,
        version=__version__,
        style=Markup(style),
        style_hash=f"sha256-{digest}",
        quotes=quotes,
        quote_json=quote_json,
        whole=whole,
        example=example,
        fold_lines=FOLD_LINES,
    )
