"""The page's scripts hook onto behaviour markers, never onto test ids, and listen to keys in one place.

`data-testid` serves the tests alone: a script that selected by it would break when a test id is renamed,
and would tie the markup's test contract to behaviour. Scripts select by `data-action` (what a click
does), `data-role` (what an element is to a script), `data-call` (a call to the server) or by id.
"""

from __future__ import annotations

import re

import pytest

from webclient.views import assets
from webclient.views.paths import STATIC_DIR

TEMPLATES = STATIC_DIR.parent / "templates"
# Vendored as released; not ours to change.
VENDORED = {"htmx-2.0.11.min.js", "htmx-ext-ws-2.0.4.js"}
OURS = sorted(name for name in assets.SCRIPTS if name not in VENDORED)


def source(name: str) -> str:
    return (STATIC_DIR / name).read_text(encoding="utf-8")


def templates() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(TEMPLATES.rglob("*.html")))


@pytest.mark.parametrize("name", OURS)
def test_no_script_reads_a_test_id(name: str) -> None:
    assert "testid" not in source(name).lower()


def test_every_script_of_static_is_checked() -> None:
    assert set(OURS) | VENDORED == {p.name for p in STATIC_DIR.glob("*.js")}


def test_only_the_keymap_listens_to_keydown() -> None:
    # One dispatcher with a written priority (static/keymap.js), not listeners racing by load order.
    listening = [name for name in OURS if re.search(r"""addEventListener\(\s*["']keydown""", source(name))]
    assert listening == ["keymap.js"]


def test_every_marker_a_script_selects_is_in_the_templates() -> None:
    # A marker renamed in a template, or misspelt in a script, would silently disable the behaviour.
    markup = templates()
    selected = {
        (kind, value)
        for name in OURS
        for kind, value in re.findall(r"""data-(action|role|call)="([\w-]+)\"""", source(name))
    }
    assert selected, "no marker found: the pattern no longer matches the scripts"
    markers = {f'data-{kind}="{value}"' for kind, value in selected}
    missing = sorted(marker for marker in markers if marker not in markup)
    assert missing == []


def test_every_slot_of_the_keymap_has_its_handler_and_no_other_is_registered() -> None:
    # keymap.js refuses unknown names at run time; this catches a slot left without its handler.
    table = re.search(r"var PRIORITY = \[(.*?)\];", source("keymap.js"), re.S)
    assert table is not None
    slots = re.findall(r'^\s*"([\w-]+)"', table.group(1), re.M)
    registered = [slot for name in OURS for slot in re.findall(r"""register\(\s*"([\w-]+)\"""", source(name))]
    assert sorted(registered) == sorted(slots)
    assert len(slots) == 8
