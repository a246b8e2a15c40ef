"""Which rules a check judges (`--rules`), and which runs past the baseline those rules need."""

from __future__ import annotations

from webclient.check.rules import RULES, Rule

# The runs besides the baseline that each rule reads: the unadvertised declarations, the offers of one
# block type each, the replay. A subset of rules (--rules) starts only the runs they need.
NEEDS: dict[str, frozenset[str]] = {
    "gating.unadvertised": frozenset({"unadvertised"}),
    "gating.types": frozenset({"offers"}),
    "shape.update": frozenset({"offers"}),
    "shape.prompt": frozenset({"offers"}),
    "shape.blank": frozenset({"offers"}),
    "replay.empty": frozenset({"replay"}),
    "session.id": frozenset({"unadvertised", "offers", "legacy"}),
    "legacy.meta": frozenset({"unadvertised", "offers", "legacy"}),
}


def needed(rules: tuple[Rule, ...]) -> frozenset[str]:
    """The groups of runs `rules` read (see NEEDS)."""
    return frozenset().union(*(NEEDS.get(rule.id, frozenset()) for rule in rules))


def pick(ids: str) -> tuple[Rule, ...]:
    """The rules named in `ids` (comma-separated), in their usual order; ValueError names an unknown one."""
    wanted = {i.strip() for i in ids.split(",") if i.strip()}
    unknown = sorted(wanted - {rule.id for rule in RULES})
    if unknown:
        raise ValueError(f"no rule {', '.join(unknown)}; --list-rules lists them")
    if not wanted:
        raise ValueError("--rules takes rule ids separated by commas; --list-rules lists them")
    return tuple(rule for rule in RULES if rule.id in wanted)
