"""Unified diffs of tool-call diff content, line by line."""

from __future__ import annotations

from webclient.views.diff import MAX_SIDE_LINES, DiffLine, diff_view, find_text, text_key, unified


def kinds(lines: list[DiffLine]) -> list[str]:
    return [line.kind for line in lines]


def test_a_changed_line_is_a_deletion_then_an_addition_inside_a_hunk_with_context() -> None:
    lines = unified("/w/a.py", "a\nb\nc\n", "a\nB\nc\n")

    assert lines == [
        DiffLine("file", "--- /w/a.py"),
        DiffLine("file", "+++ /w/a.py"),
        DiffLine("hunk", "@@ -1,3 +1,3 @@"),
        DiffLine("ctx", " a"),
        DiffLine("del", "-b"),
        DiffLine("add", "+B"),
        DiffLine("ctx", " c"),
    ]


def test_an_appended_line_is_one_addition() -> None:
    lines = unified("/w/a.py", "x = 1\n", "x = 1\n# reviewed by the demo agent\n")

    assert [line for line in lines if line.kind == "add"] == [
        DiffLine("add", "+# reviewed by the demo agent")
    ]
    assert "del" not in kinds(lines)


def test_a_new_file_diffs_from_dev_null_and_every_line_is_added() -> None:
    lines = unified("/w/new.txt", None, "one\ntwo\n")

    assert lines[0] == DiffLine("file", "--- /dev/null")
    assert kinds(lines) == ["file", "file", "hunk", "add", "add"]


def test_no_change_gives_only_the_file_headers() -> None:
    assert kinds(unified("/w/a", "same\n", "same\n")) == ["file", "file"]


def test_removed_lines_that_look_like_headers_stay_deletions() -> None:
    lines = unified("/w/a", "--- x\n++ y\nkeep\n", "keep\n")

    assert kinds(lines) == ["file", "file", "hunk", "del", "del", "ctx"]
    assert lines[3].text == "---- x"


def test_distant_changes_make_separate_hunks() -> None:
    old = "".join(f"{i}\n" for i in range(30))
    new = old.replace("2\n", "two\n", 1).replace("27\n", "twenty-seven\n")

    assert kinds(unified("/w/n", old, new)).count("hunk") == 2


def test_a_change_past_the_bound_shows_each_sides_size_and_ends_without_diffing() -> None:
    old = "".join(f"old {n}\n" for n in range(MAX_SIDE_LINES + 1))
    view = diff_view("/w/a.txt", old, "new\n")

    assert view.lines == ()
    before, after = view.sides
    assert (before.label, before.lines, before.head[0], before.tail[-1]) == (
        "before",
        MAX_SIDE_LINES + 1,
        "old 0",
        f"old {MAX_SIDE_LINES}",
    )
    assert (after.label, after.lines, after.tail) == ("after", 1, ())
    assert find_text(["other", old], before.key) is old and before.key == text_key(old)


def test_a_change_within_the_bound_is_diffed_once_and_then_taken_from_the_cache() -> None:
    old, new = "a\nb\n" * 100, "a\nc\n" * 100
    first = diff_view("/w/b.txt", old, new)
    assert first.sides == () and first.lines
    assert diff_view("/w/b.txt", old, new).lines is first.lines
