"""What the two sides can do: our own prompt capabilities and the client's promptSuggestions capability.

The client's capability is read from the RAW ``initialize`` params: the SDK's ``ClientSessionCapabilities``
model ignores unknown fields, so ``promptSuggestions`` never survives validation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from acp.schema import PromptCapabilities

__all__ = ["AGENT_PROMPT_CAPABILITIES", "BASELINE_BLOCK_TYPES", "SuggestionSupport", "dig"]

AGENT_PROMPT_CAPABILITIES = PromptCapabilities(image=True, audio=False, embedded_context=True)

# text and resource_link are usable in every prompt (ACP baseline) and by every client that advertises
# promptSuggestions at all.
BASELINE_BLOCK_TYPES = frozenset({"text", "resource_link"})

# Optional block type -> (field in the client's promptSuggestions object, whether we accept it in prompts).
# `resource` (embedded context) maps to `embeddedContext`, as in promptCapabilities.
_OPTIONAL_TYPES: dict[str, tuple[str, bool]] = {
    "image": ("image", bool(AGENT_PROMPT_CAPABILITIES.image)),
    "audio": ("audio", bool(AGENT_PROMPT_CAPABILITIES.audio)),
    "resource": ("embeddedContext", bool(AGENT_PROMPT_CAPABILITIES.embedded_context)),
}


@dataclass(frozen=True, slots=True)
class SuggestionSupport:
    """The negotiated prompt-suggestions feature for one connection.

    ``advertised`` is False unless ``clientCapabilities.session.promptSuggestions`` is an object; then no
    ``prompt_suggestions_update`` may be sent at all. ``block_types`` are the ContentBlock types both sides
    allow in a suggestion; the client's own types are kept apart so a scenario can say what it overrode.
    """

    advertised: bool = False
    block_types: frozenset[str] = frozenset()
    client_block_types: frozenset[str] = frozenset()

    @classmethod
    def from_initialize_params(cls, params: Any) -> SuggestionSupport:
        """Negotiate from raw v1 ``initialize`` params (any JSON value; malformed means not advertised)."""
        return cls.from_offer(dig(params, "clientCapabilities", "session", "promptSuggestions"))

    @classmethod
    def from_v2_initialize_params(cls, params: Any) -> SuggestionSupport:
        """Negotiate from raw v2 ``initialize`` params: ``capabilities.session.promptSuggestions``."""
        return cls.from_offer(dig(params, "capabilities", "session", "promptSuggestions"))

    @classmethod
    def from_offer(cls, offer: Any) -> SuggestionSupport:
        """Negotiate from the client's ``promptSuggestions`` value (the same object in both versions)."""
        if not isinstance(offer, dict):
            return cls()
        client_types = set(BASELINE_BLOCK_TYPES)
        both_types = set(BASELINE_BLOCK_TYPES)
        for block_type, (field, agent_accepts) in _OPTIONAL_TYPES.items():
            # Client fields are objects: `{}` = supported, omitted or null = not (presence, not truthiness).
            if isinstance(offer.get(field), dict):
                client_types.add(block_type)
                if agent_accepts:
                    both_types.add(block_type)
        return cls(True, frozenset(both_types), frozenset(client_types))

    def allows(self, block_type: str) -> bool:
        """Whether a block of this type may appear in a suggestion we predict."""
        return self.advertised and block_type in self.block_types


def dig(value: Any, *keys: str) -> Any:
    """`value[k1][k2]...`, or None as soon as a level is missing or not an object (raw wire data)."""
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value
