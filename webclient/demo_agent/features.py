"""What the client said it can do, beyond prompt suggestions: file access and boolean config options.

Read from the RAW ``initialize`` params, like the suggestions capability, so nothing the SDK's models drop
is lost and a malformed value simply means "not advertised".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .capabilities import dig

__all__ = ["ClientFeatures"]


@dataclass(frozen=True, slots=True)
class ClientFeatures:
    """``fs/read_text_file``, ``fs/write_text_file`` and ``terminal/*`` may be sent only when advertised;
    boolean config options may be offered only to a client that advertises
    ``session.configOptions.boolean`` (v1; every v2 client takes them)."""

    read_text_file: bool = False
    write_text_file: bool = False
    boolean_config: bool = False
    terminal: bool = False  # `terminal/*`: `run <command>` runs in the client's terminal
    # ACP v2: no client fs or terminal; `run <command>` runs in the agent, shown in a display terminal.
    agent_terminal: bool = False
    protocol: int = 1

    @classmethod
    def for_v2(cls) -> ClientFeatures:
        """A v2 client: no `fs/*` or `terminal/*` (gone from v2), and every client handles boolean options."""
        return cls(boolean_config=True, agent_terminal=True, protocol=2)

    @classmethod
    def from_initialize_params(cls, params: Any) -> ClientFeatures:
        fs = dig(params, "clientCapabilities", "fs")
        fs = fs if isinstance(fs, dict) else {}
        boolean = dig(params, "clientCapabilities", "session", "configOptions", "boolean")
        return cls(
            read_text_file=fs.get("readTextFile") is True,
            write_text_file=fs.get("writeTextFile") is True,
            boolean_config=isinstance(boolean, dict),
            terminal=dig(params, "clientCapabilities", "terminal") is True,
        )
