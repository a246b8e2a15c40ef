"""A check's outcome: per protocol version its verdicts, and the wire lines they quote (renderings:
`terminal.py`, `exports.py` for JSON and JUnit, `html.py`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from webclient.check.hints import DEFAULT_PLAYGROUND, Hint, hint
from webclient.check.recorder import WireLine
from webclient.check.rules import RULES, Rule, Status, Verdict
from webclient.check.runner import Run

# Wire lines quoted under each verdict in the terminal and the HTML report (the JSON has them all).
QUOTED_LINES = 6
QUOTE_CHARS = 240


@dataclass
class VersionResult:
    """One protocol version: its verdicts, or why it could not be checked."""

    version: int
    verdicts: list[Verdict]
    runs: list[Run]
    unavailable: str | None = None
    unsupported: bool = False  # unavailable because the agent does not speak this version
    agent_exit_code: int | None = None  # unavailable because the agent ended: its exit code
    stderr: tuple[str, ...] = ()  # and the last lines it wrote to stderr

    @property
    def broken(self) -> bool:
        """Not checked for another reason than the version: the agent did not start or answer."""
        return self.unavailable is not None and not self.unsupported

    def verdict(self, rule: Rule) -> Verdict:
        return next(v for v in self.verdicts if v.rule == rule)


@dataclass
class Report:
    agent: str
    versions: list[VersionResult]
    lines: list[WireLine]
    notes: list[str] = field(default_factory=list)  # what the check itself says (the copy, the prompts)
    playground: str = DEFAULT_PLAYGROUND  # the playground the reports' links open
    rules: tuple[Rule, ...] = RULES  # the rules checked (--rules), in their usual order

    def hint(self, verdict: Verdict) -> Hint:
        """How to fix what `verdict` found (the offending message and its link for a FAIL)."""
        return hint(verdict, [w for n in verdict.lines if (w := self.line(n)) is not None], self.playground)

    @property
    def failed(self) -> list[tuple[int, Verdict]]:
        return [(r.version, v) for r in self.versions for v in r.verdicts if v.status is Status.FAIL]

    @property
    def ran(self) -> bool:
        """Whether any version was checked at all: a check that could not run passes nothing."""
        return any(r.unavailable is None for r in self.versions)

    @property
    def not_run(self) -> VersionResult | None:
        """When the check did not run: the version that says best why (the agent's own error first)."""
        if self.ran or not self.versions:
            return None
        return next((r for r in self.versions if r.broken), self.versions[0])

    @property
    def exit_code(self) -> int:
        if not self.ran:
            return 2
        return 1 if self.failed else 0

    @property
    def outcome(self) -> str:
        """One sentence: what the check found, with its exit code."""
        failed = self.failed
        if (why := self.not_run) is not None:
            return f"THE CHECK DID NOT RUN: {why.unavailable} (exit code {self.exit_code})"
        if failed:
            plural = "s" if len(failed) != 1 else ""
            return f"{len(failed)} rule verdict{plural} FAIL (exit code 1)"
        return "no rule fails (exit code 0)"

    def line(self, number: int) -> WireLine | None:
        # Numbers are dense from 1, so the list index finds a line.
        if 0 < number <= len(self.lines) and self.lines[number - 1].number == number:
            return self.lines[number - 1]
        return next((w for w in self.lines if w.number == number), None)

    def warnings(self) -> list[dict[str, Any]]:
        """Everything else the agent did wrong on the way (protocol mistakes), with the offending line."""
        return self._events("warning")

    def notices(self) -> list[dict[str, Any]]:
        """What else happened that is no mistake: updates we ignored, notices the agent sent."""
        return self._events("notice")

    def _events(self, kind: Literal["warning", "notice"]) -> list[dict[str, Any]]:
        found = []
        for result in self.versions:
            for run in result.runs:
                for event in run.recorder.of(kind):
                    wire = self.line(event.line) if event.line is not None else None
                    found.append(
                        {"protocol": result.version, "run": run.name, "text": event.text,
                         "line": line_json(wire) if wire else None}
                    )  # fmt: skip
        return found


def quote(wire: WireLine, width: int = QUOTE_CHARS) -> str:
    """One wire line for people: its number, its direction, and the message, a session/update shown by
    its body (the envelope says little), cut to `width`."""
    text = short(wire.text)
    text = text if len(text) <= width else text[: width - 1] + "…"
    arrow = {"in": "<-", "out": "->"}.get(wire.direction, "##")
    return f"{wire.number:>5} {arrow} {text}"


def short(text: str) -> str:
    try:
        message = json.loads(text)
    except ValueError:
        return text
    params = message.get("params") if isinstance(message, dict) else None
    if isinstance(params, dict) and isinstance(params.get("update"), dict):
        body = json.dumps(params["update"], ensure_ascii=False)
        return f"{message.get('method')} [{params.get('sessionId')}] {body}"
    return text


def line_json(wire: WireLine) -> dict[str, Any]:
    return {"number": wire.number, "run": wire.run, "direction": wire.direction, "text": wire.text}


def agent_end(result: VersionResult) -> list[str]:
    """How the agent ended when a version could not be checked: its exit code and its last words."""
    out = []
    if result.agent_exit_code is not None:
        out.append(f"  the agent exited with code {result.agent_exit_code}")
    if result.stderr:
        out.append(f"  the last {len(result.stderr)} lines it wrote to stderr:")
        out.extend(f"  | {line}" for line in result.stderr)
    elif result.agent_exit_code is not None:  # a process that ended (a remote agent has no stderr here)
        out.append("  it wrote nothing to stderr")
    return out
