"""The check's report in the terminal: the table of verdicts, then each rule with what it saw."""

from __future__ import annotations

import textwrap

from webclient import __version__
from webclient.check.hints import FOLD_LINES, Hint, whole
from webclient.check.recorder import WireLine
from webclient.check.report import QUOTED_LINES, Report, VersionResult, agent_end, quote
from webclient.check.rules import Rule, Status

# A playground link longer than this is left to the HTML and JSON reports.
LINK_CHARS = 4000
NOTICES_SHOWN = 5


def terminal(report: Report, width: int = 100) -> str:
    out = [f"webclient check {__version__}: {report.agent}", ""]
    if report.not_run is not None:
        out += [report.outcome, *agent_end(report.not_run), ""]
    out += _table(report)
    for result in report.versions:
        if result.unavailable:
            out.append(f"v{result.version}: not checked: {result.unavailable}")
            out.extend(agent_end(result))
    for rule in report.rules:
        out += _rule(report, rule, width)
    out += _warnings(report, width)
    out += _notices(report)
    out.append(report.outcome)
    return "\n".join(out)


def _table(report: Report) -> list[str]:
    """The verdicts: a rule a line, a column per protocol version."""
    versions = report.versions
    head = f"{'rule':<22} {'what it checks':<46}" + "".join(f" {'v' + str(r.version):<13}" for r in versions)
    out = [head, "-" * len(head)]
    for rule in report.rules:
        cells = "".join(f" {_cell(r, rule):<13}" for r in versions)
        out.append(f"{rule.id:<22} {rule.title[:46]:<46}{cells}")
    return [*out, ""]


def _rule(report: Report, rule: Rule, width: int) -> list[str]:
    """A rule, its sentence, and each version's verdict with the lines it saw (nothing if none ran)."""
    shown = [(r, r.verdict(rule)) for r in report.versions if not r.unavailable]
    if not shown:
        return []
    out = [f"{rule.id}: {rule.title}"]
    out.extend(textwrap.wrap(f'RFD: "{rule.sentence}"', width, initial_indent="  ", subsequent_indent="  "))
    for result, verdict in shown:
        out.extend(
            textwrap.wrap(f"v{result.version} {verdict.status.value}: {verdict.summary}", width,
                          initial_indent="  ", subsequent_indent="      ")
        )  # fmt: skip
        for number in verdict.lines[:QUOTED_LINES]:
            if (wire := report.line(number)) is not None:
                out.append("    " + quote(wire, width - 4))
        if verdict.status is Status.FAIL:
            out.extend(_fix(report.hint(verdict), width))
    return [*out, ""]


def _warnings(report: Report, width: int) -> list[str]:
    warnings = report.warnings()
    if not warnings:
        return []
    out = [f"warnings ({len(warnings)}):"]
    for warning in warnings[:20]:
        out.append(f"  {warning['run']}: {warning['text']}")
        if warning["line"]:
            out.append("    " + quote(WireLine(**warning["line"]), width - 4))
    return [*out, ""]


def _notices(report: Report) -> list[str]:
    notices = report.notices()
    if not notices:
        return []
    out = [f"notices ({len(notices)}, not mistakes: what the client ignored or the agent told):"]
    out.extend(f"  {notice['run']}: {notice['text']}" for notice in notices[:NOTICES_SHOWN])
    if len(notices) > NOTICES_SHOWN:
        out.append(f"  … {len(notices) - NOTICES_SHOWN} more in --json and --html")
    return [*out, ""]


def _cell(result: VersionResult, rule: Rule) -> str:
    if result.unavailable:
        return "NOT RUN" if result.broken else "UNAVAILABLE"
    return result.verdict(rule).status.value


def _fix(hint: Hint, width: int) -> list[str]:
    """Under a FAIL: what to do, the offending message whole (long ones cut, with where the rest is),
    the message that would keep the rule, and the playground link."""
    out = textwrap.wrap(f"fix: {hint.fix}", width, initial_indent="    ", subsequent_indent="      ")
    if hint.offending is not None:
        wire = hint.offending
        out.append(f"    the whole message (line {wire.number}, {wire.run}):")
        body = whole(wire).splitlines()
        shown = body if len(body) <= 2 * FOLD_LINES else body[:FOLD_LINES]
        out.extend(f"      | {line}" for line in shown)
        if len(shown) < len(body):
            out.append(
                f"      | … {len(body) - len(shown)} more lines: the whole message is in --json and --html"
            )
    out.append("    a message that keeps it:")
    out.extend(f"      | {line}" for line in hint.example.splitlines())
    if hint.playground is not None:
        link = hint.playground if len(hint.playground) <= LINK_CHARS else "(too long here: see --html)"
        out.append(f"    open it in the playground: {link}")
    return out
