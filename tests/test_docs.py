"""The documentation holds together: every relative link and image resolves, to a file and to a heading
where it names one; every page under docs/ is reachable from the README; the README stays short (the
rest belongs in docs/)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
README_MAX_LINES = 200
PAGES = sorted([README, ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md", *(ROOT / "docs").rglob("*.md")])

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
# [text](target) and ![alt](target), with an optional "title" after the target.
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # http:, https:, mailto:, …


def prose(text: str) -> str:
    """The Markdown without code blocks and inline code, where a bracket is not a link."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def links(page: Path) -> list[str]:
    return LINK.findall(prose(page.read_text(encoding="utf-8")))


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading anchor of a page; a repeated heading gets -1, -2, … as on GitHub."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for heading in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken(page: Path, target: str) -> str | None:
    """Why a relative link of `page` does not resolve, or None when it does."""
    path_part, _, fragment = target.partition("#")
    destination = (page.parent / unquote(path_part)).resolve() if path_part else page
    if not destination.exists():
        return f"{target}: no such file"
    if ROOT not in destination.parents and destination != ROOT:
        return f"{target}: outside the repository"
    if fragment and destination.suffix == ".md" and fragment not in anchors(destination):
        return f"{target}: no heading #{fragment} in {destination.relative_to(ROOT)}"
    return None


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_image_resolves(page: Path) -> None:
    relative = [t for t in links(page) if not EXTERNAL.match(t)]
    problems = [problem for t in relative if (problem := broken(page, t)) is not None]
    assert not problems, f"{page.relative_to(ROOT)}: " + "; ".join(problems)


def test_the_readme_is_at_most_200_lines() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move detail into docs/"


def test_every_page_under_docs_is_linked_from_the_readme() -> None:
    linked = {(ROOT / unquote(t.partition("#")[0])).resolve() for t in links(README) if not EXTERNAL.match(t)}
    unlinked = [p.relative_to(ROOT) for p in (ROOT / "docs").rglob("*.md") if p.resolve() not in linked]
    assert not unlinked, f"not linked from README.md: {unlinked}"


def test_the_checks_catch_a_missing_file_a_missing_heading_and_a_long_readme(tmp_path: Path) -> None:
    page = ROOT / "docs" / "security.md"
    assert broken(page, "no-such-page.md") == "no-such-page.md: no such file"
    assert broken(page, "configuration.md#no-such-heading") is not None
    assert broken(page, "configuration.md#the-settings-file") is None
    assert broken(page, "#protected-paths") is None
    assert links(page) and "../README.md#prompt-suggestions" in links(page)
    sample = tmp_path / "sample.md"
    sample.write_text("# A `code` heading: here\n\n```\n[not](a-link.md)\n```\n[a](b.png) `[c](d)`\n")
    assert links(sample) == ["b.png"]
    assert anchors(sample) == {"a-code-heading-here"}
