"""Client-side fs access: only inside the roots, symlinks resolved, UTF-8 text, line/limit slicing."""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path

import pytest

from webclient.domain.files import (
    FileAccess,
    FileAccessDenied,
    FileAccessError,
    FileMissing,
    FileNotRegular,
    FileNotText,
    FileTooLarge,
    WriteResult,
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("one\ntwo\nthree\nfour\n")
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    return outside


@pytest.fixture
def files(root: Path) -> FileAccess:
    return FileAccess([root])


def snapshot(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() if p.is_file() else b"<dir>"
        for p in sorted(directory.rglob("*"))
    }


def test_reads_a_whole_file(files: FileAccess, root: Path) -> None:
    assert files.read_text(str(root / "a.txt")) == "one\ntwo\nthree\nfour\n"


@pytest.mark.parametrize(
    ("line", "limit", "expected"),
    [
        (2, None, "two\nthree\nfour\n"),
        (2, 2, "two\nthree\n"),
        (None, 1, "one\n"),
        (1, 0, ""),
        (4, 10, "four\n"),
        (9, 3, ""),
    ],
)
def test_line_is_one_based_and_limit_counts_lines(
    files: FileAccess, root: Path, line: int | None, limit: int | None, expected: str
) -> None:
    assert files.read_text(str(root / "a.txt"), line, limit) == expected


def test_a_relative_path_is_refused(files: FileAccess, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(root)
    with pytest.raises(FileAccessDenied, match=r"a\.txt"):
        files.read_text("a.txt")


def test_dot_dot_out_of_the_root_is_refused(files: FileAccess, root: Path, outside: Path) -> None:
    sneaky = f"{root}/sub/../../outside/secret.txt"
    with pytest.raises(FileAccessDenied, match=r"secret\.txt"):
        files.read_text(sneaky)


def test_dot_dot_that_stays_inside_is_allowed(files: FileAccess, root: Path) -> None:
    assert files.read_text(f"{root}/sub/../a.txt", 1, 1) == "one\n"


def test_an_absolute_path_outside_is_refused(files: FileAccess, outside: Path) -> None:
    with pytest.raises(FileAccessDenied, match=re.escape(str(outside / "secret.txt"))):
        files.read_text(str(outside / "secret.txt"))


def test_a_symlinked_file_that_escapes_is_refused(files: FileAccess, root: Path, outside: Path) -> None:
    (root / "link.txt").symlink_to(outside / "secret.txt")
    with pytest.raises(FileAccessDenied, match=r"link\.txt"):
        files.read_text(str(root / "link.txt"))


def test_a_symlinked_directory_that_escapes_is_refused(files: FileAccess, root: Path, outside: Path) -> None:
    (root / "door").symlink_to(outside, target_is_directory=True)
    with pytest.raises(FileAccessDenied):
        files.read_text(str(root / "door" / "secret.txt"))
    with pytest.raises(FileAccessDenied):
        files.write_text(str(root / "door" / "planted.txt"), "x")
    assert not (outside / "planted.txt").exists()


def test_a_symlink_that_stays_inside_is_followed(files: FileAccess, root: Path) -> None:
    (root / "alias.txt").symlink_to(root / "a.txt")
    assert files.read_text(str(root / "alias.txt"), 3, 1) == "three\n"


def test_a_root_reached_through_a_symlink_still_contains_its_files(root: Path, tmp_path: Path) -> None:
    (tmp_path / "via").symlink_to(root, target_is_directory=True)
    files = FileAccess([tmp_path / "via"])
    assert files.read_text(str(root / "a.txt"), 1, 1) == "one\n"
    assert files.read_text(str(tmp_path / "via" / "a.txt"), 1, 1) == "one\n"


def test_any_of_several_roots_is_allowed(root: Path, outside: Path) -> None:
    files = FileAccess([root, outside])
    assert files.read_text(str(outside / "secret.txt")) == "secret\n"


def test_a_missing_file_is_a_clear_file_not_found_error(files: FileAccess, root: Path) -> None:
    with pytest.raises(FileMissing, match=r"nope\.txt") as error:
        files.read_text(str(root / "nope.txt"))
    assert isinstance(error.value, FileNotFoundError)


def test_a_directory_cannot_be_read(files: FileAccess, root: Path) -> None:
    with pytest.raises(FileMissing, match="directory"):
        files.read_text(str(root / "sub"))


def test_a_file_over_the_cap_is_refused(root: Path) -> None:
    (root / "big.txt").write_text("x" * 101)
    files = FileAccess([root], max_bytes=100)
    with pytest.raises(FileTooLarge, match=r"big\.txt"):
        files.read_text(str(root / "big.txt"))
    with pytest.raises(FileTooLarge):
        files.write_text(str(root / "other.txt"), "y" * 101)
    assert not (root / "other.txt").exists()


def test_a_file_that_is_not_utf8_is_refused(files: FileAccess, root: Path) -> None:
    (root / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    with pytest.raises(FileNotText, match=r"latin1\.txt"):
        files.read_text(str(root / "latin1.txt"))


def test_write_replaces_a_file_inside_and_returns_old_and_new_text(files: FileAccess, root: Path) -> None:
    result = files.write_text(str(root / "a.txt"), "new\n")

    assert result == WriteResult(str(root / "a.txt"), "one\ntwo\nthree\nfour\n", "new\n")
    assert (root / "a.txt").read_text() == "new\n"


def test_write_creates_a_new_file_and_its_parent_directories(files: FileAccess, root: Path) -> None:
    target = root / "deep" / "er" / "new.txt"

    result = files.write_text(str(target), "héllo\n")

    assert result.old_text is None
    assert target.read_text(encoding="utf-8") == "héllo\n"


@pytest.mark.parametrize(
    "make_path",
    [
        lambda root, outside: str(outside / "secret.txt"),
        lambda root, outside: f"{root}/../outside/secret.txt",
        lambda root, outside: f"{root}/../outside/new/dir/file.txt",
        lambda root, outside: "relative.txt",
    ],
    ids=["absolute-outside", "dot-dot", "dot-dot-new-dirs", "relative"],
)
def test_a_refused_write_leaves_the_disk_unchanged(
    files: FileAccess, root: Path, outside: Path, make_path: object
) -> None:
    before = snapshot(root.parent)
    path = make_path(root, outside)  # type: ignore[operator]

    with pytest.raises(FileAccessDenied):
        files.write_text(path, "pwned\n")

    assert snapshot(root.parent) == before


def test_writing_through_an_escaping_symlinked_file_is_refused(
    files: FileAccess, root: Path, outside: Path
) -> None:
    (root / "link.txt").symlink_to(outside / "secret.txt")
    with pytest.raises(FileAccessDenied):
        files.write_text(str(root / "link.txt"), "pwned\n")
    assert (outside / "secret.txt").read_text() == "secret\n"


def test_a_fifo_is_refused_without_blocking(files: FileAccess, root: Path) -> None:
    os.mkfifo(root / "pipe")
    with pytest.raises(FileNotRegular, match="a FIFO"):
        files.read_text(str(root / "pipe"))
    with pytest.raises(FileNotRegular):
        files.write_text(str(root / "pipe"), "x")


def test_a_slice_of_a_file_over_the_cap_can_be_read_but_not_the_whole(root: Path) -> None:
    (root / "big.txt").write_text("a\n" + "x" * 200 + "\nz\n")
    files = FileAccess([root], max_bytes=100)
    assert files.read_text(str(root / "big.txt"), 3, 1) == "z\n"
    assert files.read_text(str(root / "big.txt"), 1, 1) == "a\n"
    with pytest.raises(FileTooLarge, match="line and limit"):
        files.read_text(str(root / "big.txt"), 2, 1)


def test_a_new_file_is_never_executable_and_an_existing_one_keeps_its_mode(
    files: FileAccess, root: Path
) -> None:
    old = os.umask(0)
    try:
        files.write_text(str(root / "new.sh"), "#!/bin/sh\n")
    finally:
        os.umask(old)
    assert (root / "new.sh").stat().st_mode & 0o111 == 0
    (root / "a.txt").chmod(0o640)
    files.write_text(str(root / "a.txt"), "changed\n")
    assert stat.S_IMODE((root / "a.txt").stat().st_mode) == 0o640


def test_an_existing_file_over_the_cap_is_not_replaced(root: Path) -> None:
    (root / "big.txt").write_text("x" * 101)
    files = FileAccess([root], max_bytes=100)
    with pytest.raises(FileTooLarge, match="it is not replaced"):
        files.write_text(str(root / "big.txt"), "small")
    assert (root / "big.txt").read_text() == "x" * 101


def test_a_write_that_fails_part_way_leaves_the_original_whole_and_no_temporary_file(
    files: FileAccess, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = root / "a.txt"
    target.chmod(0o640)

    def full_disk(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(FileAccessError, match=r"No space left on device.*the file was left as it was"):
        files.write_text(str(target), "replaced\n" * 1000)

    assert target.read_text() == "one\ntwo\nthree\nfour\n"
    assert sorted(p.name for p in root.iterdir()) == ["a.txt", "sub"]
    monkeypatch.undo()
    files.write_text(str(target), "replaced\n")
    assert target.read_text() == "replaced\n" and stat.S_IMODE(target.stat().st_mode) == 0o640
