"""A check's outcome, and its renderings: the terminal table, JSON and JUnit (HTML: `html.py`)."""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any

from webclient import __version__
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
        """Everything else the agent did wrong on the way, with the offending line."""
        found = []
        for result in self.versions:
            for run in result.runs:
                for event in run.recorder.of("warning"):
                    wire = self.line(event.line) if event.line is not None else None
                    found.append(
                        {"protocol": result.version, "run": run.name, "text": event.text,
                         "line": _line_json(wire) if wire else None}
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


def _line_json(wire: WireLine) -> dict[str, Any]:
    return {"number": wire.number, "run": wire.run, "direction": wire.direction, "text": wire.text}


# --- the terminal ---------------------------------------------------------------------------------------


def terminal(report: Report, width: int = 100) -> str:
    versions = [r for r in report.versions]
    head = f"{'rule':<22} {'what it checks':<46}" + "".join(f" {'v' + str(r.version):<13}" for r in versions)
    out = [f"webclient check {__version__}: {report.agent}", ""]
    if report.not_run is not None:
        out += [report.outcome, *_agent_end(report.not_run), ""]
    out += [head, "-" * len(head)]
    for rule in RULES:
        cells = "".join(f" {_cell(r, rule):<13}" for r in versions)
        out.append(f"{rule.id:<22} {rule.title[:46]:<46}{cells}")
    out.append("")
    for result in versions:
        if result.unavailable:
            out.append(f"v{result.version}: not checked: {result.unavailable}")
            out.extend(_agent_end(result))
    for rule in RULES:
        shown = [(r, r.verdict(rule)) for r in versions if not r.unavailable]
        if not shown:
            continue
        out.append(f"{rule.id}: {rule.title}")
        out.extend(
            textwrap.wrap(f'RFD: "{rule.sentence}"', width, initial_indent="  ", subsequent_indent="  ")
        )
        for result, verdict in shown:
            out.extend(
                textwrap.wrap(f"v{result.version} {verdict.status.value}: {verdict.summary}", width,
                              initial_indent="  ", subsequent_indent="      ")
            )  # fmt: skip
            for number in verdict.lines[:QUOTED_LINES]:
                if (wire := report.line(number)) is not None:
                    out.append("    " + quote(wire, width - 4))
        out.append("")
    warnings = report.warnings()
    if warnings:
        out.append(f"warnings ({len(warnings)}):")
        for warning in warnings[:20]:
            out.append(f"  {warning['run']}: {warning['text']}")
            if warning["line"]:
                out.append("    " + quote(WireLine(**warning["line"]), width - 4))
        out.append("")
    out.append(report.outcome)
    return "\n".join(out)


def _cell(result: VersionResult, rule: Rule) -> str:
    if result.unavailable:
        return "NOT RUN" if result.broken else "UNAVAILABLE"
    return result.verdict(rule).status.value


def _agent_end(result: VersionResult) -> list[str]:
    """How the agent ended when a version could not be checked: its exit code and its last words."""
    out = []
    if result.agent_exit_code is not None:
        out.append(f"  the agent exited with code {result.agent_exit_code}")
    if result.stderr:
        out.append(f"  the last {len(result.stderr)} lines it wrote to stderr:")
        out.extend(f"  | {line}" for line in result.stderr)
    elif result.broken:
        out.append("  it wrote nothing to stderr")
    return out


# --- JSON -----------------------------------------------------------------------------------------------


def to_json(report: Report) -> dict[str, Any]:
    return {
        "tool": "webclient check",
        "version": __version__,
        "agent": report.agent,
        "exit_code": report.exit_code,
        "ran": report.ran,
        "outcome": report.outcome,
        "notes": report.notes,
        "protocols": [
            {
                "version": r.version,
                "unavailable": r.unavailable,
                "unsupported": r.unsupported,
                "agent_exit_code": r.agent_exit_code,
                "stderr": list(r.stderr),
                "runs": [
                    {"name": run.name, "form": run.form, "turns": run.turns, "error": run.error}
                    for run in r.runs
                ],
                "rules": [_verdict_json(report, v) for v in r.verdicts],
            }
            for r in report.versions
        ],
        "warnings": report.warnings(),
    }


def _verdict_json(report: Report, verdict: Verdict) -> dict[str, Any]:
    lines = [report.line(n) for n in verdict.lines]
    return {
        "id": verdict.rule.id,
        "title": verdict.rule.title,
        "sentence": verdict.rule.sentence,
        "status": verdict.status.value,
        "summary": verdict.summary,
        "lines": [_line_json(w) for w in lines if w is not None],
    }


def write_json(report: Report) -> str:
    return json.dumps(to_json(report), indent=2, ensure_ascii=False) + "\n"


# --- JUnit ----------------------------------------------------------------------------------------------


def write_junit(report: Report) -> str:
    """JUnit XML: a test suite per protocol version, a test case per rule. FAIL is a failure, NOT
    OBSERVED a skip; PASS and INFO pass with their summary as output. A version the agent does not speak
    is skipped; one it could not be checked in (it did not start, or stopped answering) is an error in
    every case, with the agent's exit code and last stderr lines."""
    suites = ET.Element("testsuites", name="webclient check")
    for result in report.versions:
        suite = ET.SubElement(suites, "testsuite", name=f"prompt suggestions RFD, ACP v{result.version}")
        counts = {"tests": 0, "failures": 0, "skipped": 0, "errors": 0}
        for verdict in result.verdicts:
            counts["tests"] += 1
            case = ET.SubElement(
                suite,
                "testcase",
                name=f"{verdict.rule.id}: {verdict.rule.title}",
                classname=f"rfd.v{result.version}",
            )
            body = "\n".join(quote(w) for n in verdict.lines if (w := report.line(n)) is not None)
            text = f"{verdict.summary}\nRFD: {verdict.rule.sentence}\n{body}".strip()
            if result.broken:
                counts["errors"] += 1
                error = ET.SubElement(case, "error", message=f"the check did not run: {result.unavailable}")
                error.set("type", "NOT RUN")
                error.text = "\n".join(_agent_end(result)) or None
            elif result.unavailable:
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=f"not checked: {result.unavailable}")
            elif verdict.status is Status.FAIL:
                counts["failures"] += 1
                ET.SubElement(case, "failure", message=verdict.summary, type="FAIL").text = text
            elif verdict.status is Status.NOT_OBSERVED:
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=f"NOT OBSERVED: {verdict.summary}")
            else:
                ET.SubElement(case, "system-out").text = f"{verdict.status.value}: {text}"
        for key, value in counts.items():
            suite.set(key, str(value))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
