"""The slash commands the agent advertises with ``available_commands_update``."""

from __future__ import annotations

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

__all__ = ["AVAILABLE_COMMANDS", "COMMAND_NAMES", "SCENARIO_PRESETS"]

# Names of the /suggest-demo presets, in the order the help text lists them.
SCENARIO_PRESETS = ("short", "long", "many", "files", "image", "hostile", "invalid", "withdraw")


def _command(name: str, description: str, hint: str | None = None) -> AvailableCommand:
    command_input = AvailableCommandInput(root=UnstructuredCommandInput(hint=hint)) if hint else None
    return AvailableCommand(name=name, description=description, input=command_input)


AVAILABLE_COMMANDS: tuple[AvailableCommand, ...] = (
    _command("help", "What this demo agent can do, with example prompts"),
    _command("ls", "List files in the workspace or in a directory", "directory (optional)"),
    _command("show", "Show a file from the workspace", "file path"),
    _command("explain", "Summarise a file: size, lines, definitions, headings", "file path"),
    _command("edit", "Plan, read, propose a diff, ask permission, then write a file", "file path"),
    _command("run", "Run a command in your client's terminal, after you allow it", "command, e.g. ls -l"),
    _command("search", "Search the workspace's text files for a word", "word"),
    _command("mode", "Switch the session mode: ask, code or architect", "ask | code | architect"),
    _command("slow", "Stream slowly (one number every 200 ms) so cancel can be tried", "count (optional)"),
    _command("suggest", "Test: send exactly this JSON list as prompt suggestions", "JSON list"),
    _command("suggest-demo", "Test: send a preset list of suggestions", " | ".join(SCENARIO_PRESETS)),
    _command(
        "suggest-delay", "Test: send the next prediction this many ms after the turn ends", "milliseconds"
    ),
)

COMMAND_NAMES = tuple(command.name for command in AVAILABLE_COMMANDS)
