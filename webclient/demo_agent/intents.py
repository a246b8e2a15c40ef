"""What a prompt asks for: its text, the files it links to, the media it carries, and a command."""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

from acp.schema import (
    AudioContentBlock,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
)

from .markdown import code

__all__ = ["Intent", "Kind", "PromptView", "classify", "read_prompt"]

DEFAULT_SLOW_COUNT = 15
MAX_COUNT = 1000


class Kind(Enum):
    """The requests the demo agent understands."""

    HELP = "help"
    UNKNOWN = "unknown"
    LIST = "list"
    SHOW = "show"
    EXPLAIN = "explain"
    COUNT = "count"
    SUGGEST = "suggest"
    SUGGEST_DEMO = "suggest-demo"
    SUGGEST_DELAY = "suggest-delay"
    EDIT = "edit"
    RUN = "run"
    SEARCH = "search"
    MODE = "mode"


@dataclass(frozen=True, slots=True)
class Intent:
    kind: Kind
    argument: str = ""


@dataclass(frozen=True, slots=True)
class PromptView:
    """A prompt reduced to what the agent acts on.

    ``text`` joins the text blocks; ``file_refs`` are the URIs of resource_link and embedded resource
    blocks, which count as the file argument; ``notes`` are sentences acknowledging media the agent got.
    """

    text: str
    file_refs: tuple[str, ...]
    notes: tuple[str, ...]


def read_prompt(blocks: list[Any]) -> PromptView:
    """Reduce validated ``session/prompt`` blocks (SDK models) to a PromptView."""
    texts: list[str] = []
    refs: list[str] = []
    notes: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            texts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            refs.append(block.uri)
        elif isinstance(block, EmbeddedResourceContentBlock):
            refs.append(block.resource.uri)
            notes.append(f"I received the embedded resource {code(block.resource.uri)}.")
        elif isinstance(block, ImageContentBlock):
            notes.append(f"I received an image of {_media_size(block.data)}, mime {code(block.mime_type)}.")
        elif isinstance(block, AudioContentBlock):
            notes.append(
                f"I received audio of {_media_size(block.data)}, mime {code(block.mime_type)}, "
                "although I don't advertise audio prompts."
            )
    return PromptView("".join(texts), tuple(refs), tuple(notes))


# Scenario commands keep their argument verbatim (JSON is case-sensitive); longest names first.
_SCENARIOS = (
    (Kind.SUGGEST_DEMO, "/suggest-demo"),
    (Kind.SUGGEST_DELAY, "/suggest-delay"),
    (Kind.SUGGEST, "/suggest"),
)
_HELP = re.compile(r"help|what can you do|what can i do|commands", re.I)
_LIST = re.compile(
    r"(?:ls|list)(?:\s+(?:all\s+)?(?:the\s+)?files)?(?:\s+(?:in|of|under))?(?:\s+(?P<arg>.*))?", re.I
)
_SHOW = re.compile(r"(?:show|cat|open)(?:\s+me)?(?:\s+the)?(?:\s+file)?(?:\s+(?P<arg>.*))?", re.I)
_EXPLAIN = re.compile(r"(?:explain|summari[sz]e)(?:\s+the)?(?:\s+file)?(?:\s+(?P<arg>.*))?", re.I)
_EDIT = re.compile(r"(?:edit|change)(?:\s+the)?(?:\s+file)?(?:\s+(?P<arg>.*))?", re.I)
_RUN = re.compile(r"run(?:\s+(?P<arg>.*))?", re.I)
_SEARCH = re.compile(r"(?:search|grep|find)(?:\s+for)?(?:\s+(?P<arg>.*))?", re.I)
_MODE = re.compile(r"mode(?:\s+(?P<arg>.*))?", re.I)
_COUNT = re.compile(r"slow(?:\s+(?P<n>\d+))?|count(?:\s+to)?(?:\s+(?P<to>\d+))?", re.I)


def classify(text: str) -> Intent:
    """The command a prompt's text asks for; anything else is Kind.UNKNOWN with the text as argument."""
    raw = text.strip()
    for kind, name in _SCENARIOS:
        if raw == name or raw.startswith((name + " ", name + "\n", name + "\t")):
            return Intent(kind, raw[len(name) :].strip())
    words = " ".join(raw.removeprefix("/").split()).rstrip("?!. ")
    if not words:
        return Intent(Kind.UNKNOWN)  # no text: the attachments, if any, decide
    if _HELP.fullmatch(words):
        return Intent(Kind.HELP)
    patterns = (
        (Kind.LIST, _LIST), (Kind.SHOW, _SHOW), (Kind.EXPLAIN, _EXPLAIN), (Kind.EDIT, _EDIT),
        (Kind.RUN, _RUN), (Kind.SEARCH, _SEARCH), (Kind.MODE, _MODE),
    )  # fmt: skip
    for kind, pattern in patterns:
        if match := pattern.fullmatch(words):
            return Intent(kind, _unquote(match.group("arg") or ""))
    if match := _COUNT.fullmatch(words):
        count = int(match.group("n") or match.group("to") or DEFAULT_SLOW_COUNT)
        return Intent(Kind.COUNT, str(min(count, MAX_COUNT)))
    return Intent(Kind.UNKNOWN, raw)


def _unquote(argument: str) -> str:
    argument = argument.strip()
    if len(argument) >= 2 and argument[0] == argument[-1] and argument[0] in "`'\"":
        return argument[1:-1]
    return argument


def _media_size(data: str) -> str:
    try:
        size = len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return f"{len(data)} characters that are not valid base64"
    return f"{size} byte{'s' if size != 1 else ''}"
