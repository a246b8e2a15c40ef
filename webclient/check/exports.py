"""The check's report for machines: JSON (every line of every verdict) and JUnit XML for CI."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from webclient import __version__
from webclient.check.hints import Hint, whole
from webclient.check.report import Report, agent_end, line_json, quote
from webclient.check.rules import Status, Verdict


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
        "notices": report.notices(),
    }


def _verdict_json(report: Report, verdict: Verdict) -> dict[str, Any]:
    lines = [report.line(n) for n in verdict.lines]
    return {
        "id": verdict.rule.id,
        "title": verdict.rule.title,
        "sentence": verdict.rule.sentence,
        "status": verdict.status.value,
        "summary": verdict.summary,
        "lines": [line_json(w) for w in lines if w is not None],
        "hint": _hint_json(report.hint(verdict)),
    }


def _hint_json(hint: Hint) -> dict[str, Any]:
    return {
        "fix": hint.fix,
        "example": json.loads(hint.example),
        "offending": line_json(hint.offending) if hint.offending is not None else None,
        "playground": hint.playground,
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
                error.text = "\n".join(agent_end(result)) or None
            elif result.unavailable:
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=f"not checked: {result.unavailable}")
            elif verdict.status is Status.FAIL:
                counts["failures"] += 1
                fix = _hint_text(report.hint(verdict))
                ET.SubElement(case, "failure", message=verdict.summary, type="FAIL").text = f"{text}\n\n{fix}"
            elif verdict.status is Status.NOT_OBSERVED:
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=f"NOT OBSERVED: {verdict.summary}")
            else:
                ET.SubElement(case, "system-out").text = f"{verdict.status.value}: {text}"
        for key, value in counts.items():
            suite.set(key, str(value))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _hint_text(hint: Hint) -> str:
    parts = [f"Fix: {hint.fix}"]
    if hint.offending is not None:
        wire = hint.offending
        parts.append(f"The whole message (line {wire.number}, {wire.run}):\n{whole(wire)}")
    parts.append(f"A message that keeps the rule:\n{hint.example}")
    if hint.playground is not None:
        parts.append(f"Open it in the playground: {hint.playground}")
    return "\n\n".join(parts)
