"""The `@` picker's file search and the checks on what the user attaches."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from webclient.acp.models import ImagePart, ResourceLinkPart
from webclient.domain.picker import MAX_IMAGE_BYTES, AttachmentRejected, file_part, find_files, image_part


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name in (
        "src/cart.py",
        "src/pricing.py",
        "docs/cart-guide.md",
        ".git/config",
        "node_modules/x/cart.js",
        ".hidden/cart.py",
        "README.md",
    ):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    return tmp_path


def test_every_word_must_match_and_names_rank_before_folders(tree: Path) -> None:
    assert [f.relative for f in find_files(tree, "cart")] == ["src/cart.py", "docs/cart-guide.md"]
    assert [f.relative for f in find_files(tree, "src py")] == ["src/cart.py", "src/pricing.py"]


def test_tool_and_hidden_folders_are_never_offered(tree: Path) -> None:
    offered = {f.relative for f in find_files(tree, "")}
    assert offered == {"src/cart.py", "src/pricing.py", "docs/cart-guide.md", "README.md"}


def test_a_picked_file_becomes_a_resource_link_with_its_file_uri(tree: Path) -> None:
    part = file_part(tree, "src/cart.py")
    assert part == ResourceLinkPart(name="cart.py", uri=(tree / "src/cart.py").resolve().as_uri())


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/passwd", "src", "missing.py", "link.py"])
def test_nothing_outside_the_workspace_or_not_a_file_can_be_attached(tree: Path, path: str) -> None:
    (tree.parent / "outside.txt").write_text("secret")
    (tree / "link.py").symlink_to(tree.parent / "outside.txt")
    with pytest.raises(AttachmentRejected):
        file_part(tree, path)


def test_images_must_be_displayable_base64_and_not_too_large() -> None:
    data = base64.b64encode(b"\x89PNG fake").decode()
    assert image_part("image/PNG", data) == ImagePart(mime_type="image/png", data=data)
    with pytest.raises(AttachmentRejected, match="type"):
        image_part("image/svg+xml", data)
    with pytest.raises(AttachmentRejected, match="base64"):
        image_part("image/png", "not base64!")
    with pytest.raises(AttachmentRejected, match="larger"):
        image_part("image/png", base64.b64encode(b"x" * (MAX_IMAGE_BYTES + 1)).decode())
