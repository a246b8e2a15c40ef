"""What an empty session offers: the agent's name, commands and modes, and a few prompts to start with.

The bundled demo agent gets a tour of what it can show; any other agent gets its own slash commands.
Which one is decided by what the agent said about itself (its `initialize` name), never by our settings.
"""

from __future__ import annotations

from dataclasses import dataclass

from webclient.domain.state import SessionState

# The name the bundled demo agent gives in its `initialize` response (agentInfo.name).
DEMO_AGENT_NAME = "webclient-demo"
MAX_COMMAND_STARTERS = 6


@dataclass(frozen=True)
class Starter:
    """A prompt the welcome offers: a click puts `prompt` into the composer."""

    label: str
    prompt: str
    detail: str = ""


# A walk through what the demo agent can show, in the order that tells its story best.
DEMO_TOUR: tuple[Starter, ...] = (
    Starter("What can you do?", "help", "a streamed Markdown answer and suggestions"),
    Starter("List the files", "list files", "the workspace, read by the agent"),
    Starter("Edit a file", "edit README.md", "a plan, tool calls, a diff and a permission request"),
    Starter("Run the tests", "run tests", "a command's tool call with its output"),
    Starter("A slow answer", "count to 20", "try Cancel while it streams"),
    Starter("Suggestions with files", "/suggest-demo files", "prompt suggestions that link files"),
)


def is_demo_agent(state: SessionState) -> bool:
    return state.agent_id == DEMO_AGENT_NAME


def starters(state: SessionState) -> tuple[Starter, ...]:
    """The demo tour for the demo agent; otherwise the agent's own commands (none yet: nothing)."""
    if is_demo_agent(state):
        return DEMO_TOUR
    return tuple(
        # A command that takes input leaves the cursor after a space, ready for it.
        Starter(
            f"/{command.name}", f"/{command.name}" + (" " if command.input_hint else ""), command.description
        )
        for command in state.commands[:MAX_COMMAND_STARTERS]
    )
