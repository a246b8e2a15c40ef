"""docs/configuration.md tells the truth about the command line and the environment: its options table
names every option `webclient --help` has and no other, and every `WEBCLIENT_*` variable it names for the
server is a field of the one settings object, each field named once."""

from __future__ import annotations

import re
from pathlib import Path

from webclient.settings import Settings
from webclient.web.cli import build_parser

PAGE = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"
OPTION = re.compile(r"`(--[a-z][a-z0-9-]*)")
VARIABLE = re.compile(r"`(WEBCLIENT_[A-Z0-9_]+)")
# Variables the page names that are not the server's settings: the demo agent reads its own.
DEMO_AGENT_PREFIX = "WEBCLIENT_DEMO_"


def section(title: str) -> str:
    """The text of the page's `## title` section, up to the next heading of that level."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def first_cells(markdown: str) -> list[str]:
    """The first cell of every row of the tables in `markdown`, header and rule rows left out."""
    rows = [line for line in markdown.splitlines() if line.startswith("| ")]
    cells = [row.split("|")[1].strip() for row in rows]
    return [cell for cell in cells if cell not in {"option", "variable"} and not set(cell) <= {"-", " "}]


def parser_options() -> set[str]:
    return {
        flag
        for action in build_parser()._actions
        for flag in action.option_strings
        if flag.startswith("--") and flag != "--help"
    }


def documented_options() -> set[str]:
    return {match for cell in first_cells(section("Command-line options")) for match in OPTION.findall(cell)}


def test_options_table_names_every_option_of_the_command_line_and_no_other() -> None:
    assert documented_options() == parser_options()


def test_every_settings_field_is_documented_by_its_variable() -> None:
    named = set(VARIABLE.findall(PAGE.read_text(encoding="utf-8")))
    expected = {f"WEBCLIENT_{name.upper()}" for name in Settings.model_fields}
    assert expected <= named, f"not documented: {sorted(expected - named)}"


def test_every_server_variable_the_page_names_is_a_setting() -> None:
    named = {name for name in VARIABLE.findall(PAGE.read_text(encoding="utf-8"))}
    server = {name for name in named if not name.startswith(DEMO_AGENT_PREFIX)}
    fields = {f"WEBCLIENT_{name.upper()}" for name in Settings.model_fields}
    assert server <= fields, f"no such setting: {sorted(server - fields)}"


def test_the_page_reader_finds_the_rows() -> None:
    # The parsing above would pass on an empty table; make sure it reads the real one.
    assert {"--agent", "--port", "--version"} <= documented_options()
