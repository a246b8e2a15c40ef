"""The page's bundles: every stylesheet and script of static/ in one, in order, named by its digest."""

from __future__ import annotations

import hashlib
import re

import pytest

from webclient.views import assets
from webclient.views.paths import STATIC_DIR


@pytest.mark.parametrize(("kind", "listed"), [("css", assets.STYLESHEETS), ("js", assets.SCRIPTS)])
def test_every_file_of_its_kind_in_static_is_in_the_bundle_once(
    kind: assets.Kind, listed: tuple[str, ...]
) -> None:
    # A new file in static/ that nobody listed would never reach the page.
    standalone = assets.STANDALONE if kind == "css" else ()
    assert sorted(listed + standalone) == sorted(p.name for p in STATIC_DIR.glob(f"*.{kind}"))
    assert len(set(listed)) == len(listed)


@pytest.mark.parametrize(("kind", "listed"), [("css", assets.STYLESHEETS), ("js", assets.SCRIPTS)])
def test_a_bundle_holds_each_file_whole_in_order_under_a_name_from_its_digest(
    kind: assets.Kind, listed: tuple[str, ...]
) -> None:
    bundle = assets.bundle(kind)
    body = bundle.body.decode()
    positions = [body.index((STATIC_DIR / name).read_text(encoding="utf-8")) for name in listed]
    assert positions == sorted(positions)
    digest = hashlib.sha256(bundle.body).hexdigest()[:16]
    assert bundle.file_name == f"page-{digest}.{kind}"
    assert bundle.url == f"/static/bundles/page-{digest}.{kind}"
    assert assets.url(kind) == bundle.url


def test_no_script_can_run_into_the_next_one() -> None:
    # The ws extension ends with `})()` and no semicolon: joined by a newline alone, the next file's
    # `(function () {...})()` would call what it returned.
    body = assets.bundle("js").body.decode()
    ends = [m.start() for m in re.finditer(r"/\* [\w.-]+\.js \*/", body)]
    assert len(ends) == len(assets.SCRIPTS)
    for start in ends[1:]:
        assert body[:start].rstrip().endswith(";"), body[start - 40 : start]


def test_only_the_current_bundles_are_found() -> None:
    for kind in ("css", "js"):
        bundle = assets.bundle(kind)
        assert assets.find(bundle.file_name) is bundle
    assert assets.find("page-0000000000000000.js") is None  # an outdated digest
    assert assets.find("app.css") is None
    assert assets.find("../app.css") is None
