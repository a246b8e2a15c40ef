"""Answers from the workspace, through the real agent: listing, showing, explaining, refusing."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from tests.support.demo_agent import SHARES_AGENTS, SUGGESTIONS, AgentHarness

pytestmark = SHARES_AGENTS


async def ask(agent: AgentHarness, *blocks: dict[str, Any] | str) -> str:
    """Start a session, send one prompt, and return the streamed answer text."""
    await agent.initialize(SUGGESTIONS)
    session = await agent.new_session()
    since = agent.mark()
    result = await agent.prompt(session, *blocks)
    assert result == {"stopReason": "end_turn"}
    return agent.message_text(session, since)


async def test_list_files_marks_directories_and_skips_hidden_and_tool_directories(
    agent: AgentHarness,
) -> None:
    text = await ask(agent, "list files")

    items = [line.removeprefix("- ") for line in text.splitlines() if line.startswith("- ")]
    assert items == ["`src/`", "`notes.txt`", "`README.md`"]
    for skipped in (".git", ".venv", "__pycache__", "node_modules", ".env"):
        assert skipped not in items


async def test_list_files_in_a_directory_lists_that_directory(agent: AgentHarness) -> None:
    text = await ask(agent, "list files in src")

    assert "- `app.py`" in text
    assert "README" not in text


async def test_a_listing_is_capped_at_200_entries_with_a_count_of_the_rest(agent: AgentHarness) -> None:
    many = agent.workspace / "many"
    many.mkdir()
    for i in range(205):
        (many / f"f{i:03}.txt").write_text("x")

    text = await ask(agent, "ls many")

    assert sum(line.startswith("- `f") for line in text.splitlines()) == 200
    assert "- …and 5 more" in text
    assert "205 entries" in text


async def test_show_puts_the_file_in_a_fenced_block_with_a_language_from_its_extension(
    agent: AgentHarness,
) -> None:
    text = await ask(agent, "show src/app.py")

    assert "```python\n" + (agent.workspace / "src" / "app.py").read_text() + "```" in text


@pytest.mark.parametrize(
    "reference",
    ["../outside/secret.txt", "src/../../outside/secret.txt", "{outside}/secret.txt", "escape/secret.txt"],
    ids=["dotdot", "dotdot-inside-path", "absolute", "symlink"],
)
async def test_show_refuses_paths_outside_the_workspace(agent: AgentHarness, reference: str) -> None:
    outside = agent.workspace.parent / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOPSECRET\n")
    (agent.workspace / "escape").symlink_to(outside, target_is_directory=True)

    text = await ask(agent, f"show {reference.format(outside=outside)}")

    assert "TOPSECRET" not in text
    assert "outside the workspace" in text
    assert "I only read files inside it" in text
    assert str(agent.workspace) not in text


async def test_show_refuses_a_symlink_that_leads_outside_and_says_so(agent: AgentHarness) -> None:
    outside = agent.workspace.parent / "secret.txt"
    outside.write_text("TOPSECRET\n")
    (agent.workspace / "innocent.txt").symlink_to(outside)

    text = await ask(agent, "cat innocent.txt")

    assert "TOPSECRET" not in text
    assert "symbolic link that leads outside the workspace" in text


async def test_show_refuses_binary_files(agent: AgentHarness) -> None:
    (agent.workspace / "blob.bin").write_bytes(b"\x00\x01\x02binary\xff")

    text = await ask(agent, "open blob.bin")

    assert "binary file" in text
    assert "```" not in text


async def test_show_truncates_large_files_with_a_note(agent: AgentHarness) -> None:
    lines = [f"line {i:05}\n" for i in range(5000)]
    (agent.workspace / "big.txt").write_text("".join(lines))

    text = await ask(agent, "show big.txt")

    assert "line 00000" in text
    assert "line 04999" not in text
    assert "truncated" in text
    assert "\nline " in text and text.split("```")[1].endswith("\n"), "cut at a line end"


async def test_explain_python_lists_top_level_classes_and_functions(agent: AgentHarness) -> None:
    text = await ask(agent, "explain src/app.py")

    assert "9 lines" in text
    assert "`class Greeter` (line 4): Says hello." in text
    assert "`def main(argv, *, loud)` (line 8)" in text
    assert "Module docstring: The app." in text


async def test_explain_markdown_lists_its_headings(agent: AgentHarness) -> None:
    text = await ask(agent, "explain README.md")

    assert "- Demo project\n  - Usage" in text


async def test_a_resource_link_counts_as_the_file_argument(agent: AgentHarness) -> None:
    readme = agent.workspace / "README.md"
    link = {"type": "resource_link", "name": "README.md", "uri": readme.as_uri()}

    text = await ask(agent, "Show me ", link)

    assert "```markdown\n# Demo project" in text


async def test_a_resource_link_outside_the_workspace_is_refused(agent: AgentHarness, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET\n")

    text = await ask(agent, "show", {"type": "resource_link", "name": "notes", "uri": secret.as_uri()})

    assert "TOPSECRET" not in text
    assert "outside the workspace" in text


async def test_an_image_is_acknowledged_with_its_size_and_mime_type(agent: AgentHarness) -> None:
    data = base64.b64encode(b"\x89PNG" + b"\x00" * 96).decode()

    text = await ask(
        agent, "What is in this image?", {"type": "image", "mimeType": "image/png", "data": data}
    )

    assert "I received an image of 100 bytes, mime `image/png`." in text


async def test_an_unrecognised_prompt_gets_help_with_example_prompts(agent: AgentHarness) -> None:
    text = await ask(agent, "make me a sandwich")

    assert "didn't recognise" in text
    assert str(agent.workspace) not in text  # the workspace by its name, not its absolute path
    for example in ("`list files`", "`show README.md`", "`explain app.py`", "`count to 10`", "/suggest-demo"):
        assert example in text


async def test_a_file_link_on_its_own_shows_the_file(agent: AgentHarness) -> None:
    notes = agent.workspace / "notes.txt"

    text = await ask(agent, {"type": "resource_link", "name": "notes.txt", "uri": notes.as_uri()})

    assert "```text\nfirst line\nsecond line\n```" in text


async def test_an_image_on_its_own_is_only_acknowledged(agent: AgentHarness) -> None:
    data = base64.b64encode(b"GIF89a").decode()

    text = await ask(agent, {"type": "image", "mimeType": "image/gif", "data": data})

    assert text == "- I received an image of 6 bytes, mime `image/gif`.\n\nThat is all I can tell about them."
