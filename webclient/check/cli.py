"""`webclient check [--agent NAME|CMD] [--protocol 1|2|both] [--prompt TEXT]... [--json F] [--junit F]
[--html F]`: which of the prompt-suggestion rules an agent keeps, headless, in the terminal and in CI.

Exit codes: 0 no rule fails, 1 at least one rule fails, 2 the check could not run (a bad option, an
agent that does not start or speaks no version we offer).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from webclient.agent_config import (
    AgentSpec,
    agent_environment,
    build_catalog,
    default_config_path,
    load_config,
)
from webclient.check import exports
from webclient.check import report as render
from webclient.check.hints import DEFAULT_PLAYGROUND
from webclient.check.recorder import Numbering
from webclient.check.rules import RULES, Rule, Status, Verdict, evaluate
from webclient.check.runner import Plan, Run, Runner
from webclient.check.sandbox import Sandbox
from webclient.check.selection import needed, pick
from webclient.check.terminal import terminal
from webclient.errors import SettingsError

# Prompts any agent understands; the demo agent answers each and predicts what comes next.
DEFAULT_PROMPTS = ("list the files", "what can you do?")
DEMO_STATE_ENV = "WEBCLIENT_DEMO_STATE_DIR"
DEMO_CHUNK_ENV = "WEBCLIENT_DEMO_CHUNK_DELAY_MS"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="webclient check",
        description="Drive an ACP agent headless through the situations the prompt-suggestions RFD rules "
        "about, and report each Agent rule: PASS, FAIL or NOT OBSERVED. Without --agent, checks the "
        "bundled demo agent.",
    )
    parser.add_argument("--agent", default="", help="an agent named in the settings file, or a command line")
    parser.add_argument(
        "--config", help="the settings file (default: $XDG_CONFIG_HOME/webclient/settings.json)"
    )
    parser.add_argument(
        "--agent-env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="add a variable to the agent's environment (repeatable)",
    )
    parser.add_argument("--cwd", default=".", help="the workspace; the agent works in a throwaway copy of it")
    parser.add_argument(
        "--protocol",
        choices=("auto", "1", "2", "both"),
        default="auto",
        help="the ACP version(s) to check; auto: the one the agent speaks, v2 first",
    )
    parser.add_argument(
        "--prompt",
        action="append",
        default=[],
        metavar="TEXT",
        help=f"a prompt to send (repeatable; default: {' / '.join(DEFAULT_PROMPTS)})",
    )
    parser.add_argument(
        "--step-timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="the deadline of each step: initialize, a session, one turn (default 60)",
    )
    parser.add_argument(
        "--settle",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="how long to wait after each turn for a prediction (default 1)",
    )
    parser.add_argument(
        "--allow",
        action="store_true",
        help="answer the agent's permission requests with allow (default: reject)",
    )
    parser.add_argument(
        "--rules",
        metavar="ID,ID",
        help="check only these rules (and start only the runs they need); --list-rules lists them",
    )
    parser.add_argument("--list-rules", action="store_true", help="list the rules with the RFD's sentences")
    parser.add_argument(
        "--playground-url",
        default=DEFAULT_PLAYGROUND,
        metavar="URL",
        help=f"the playground a failing rule's link opens its update in (default {DEFAULT_PLAYGROUND})",
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the report as JSON")
    parser.add_argument("--junit", type=Path, metavar="FILE", help="write the report as JUnit XML, for CI")
    parser.add_argument("--html", type=Path, metavar="FILE", help="write the report as one offline HTML page")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.list_rules:
        print(list_rules())
        return 0
    try:
        rules = pick(args.rules) if args.rules is not None else RULES
    except ValueError as exc:
        print(f"webclient check: {exc}", file=sys.stderr)
        return 2
    try:
        spec = _agent(args.agent, args.config)
        extra = dict(_pair(p) for p in args.agent_env)
    except SettingsError as exc:
        print(f"webclient check: {exc}", file=sys.stderr)
        return 2
    workspace = Path(args.cwd).expanduser().resolve()
    if not workspace.is_dir():
        print(f"webclient check: {workspace} is not a directory", file=sys.stderr)
        return 2
    if args.step_timeout <= 0 or args.settle < 0:
        print("webclient check: --step-timeout must be positive and --settle not negative", file=sys.stderr)
        return 2
    sandbox = Sandbox(workspace, allow=args.allow)
    try:
        env = agent_environment(spec, [spec.env, extra], secrets=())
        if spec.is_demo:  # its stored sessions go into the throwaway copy, not the user's state
            env[DEMO_STATE_ENV] = str(sandbox.state)
            env.setdefault(DEMO_CHUNK_ENV, "0")  # a check needs its answers, not their pacing
        plan = Plan(spec.argv, env, tuple(args.prompt) or DEFAULT_PROMPTS, args.step_timeout, args.settle,
                    groups=needed(rules), url=spec.url, headers=spec.headers,
                    remote_cwd=spec.cwd or str(workspace), local_tools=spec.local_tools)  # fmt: skip
        report = asyncio.run(check(plan, sandbox, args.protocol, Progress(sys.stderr), rules))
        report.playground = args.playground_url
        report.agent = spec.command_line if not spec.is_demo else "the bundled demo agent"
        if sandbox.left_out:
            report.notes.append(f"{sandbox.left_out} files of the workspace were too big to copy")
    finally:
        sandbox.close()
    print(terminal(report))
    outputs = ((args.json, exports.write_json), (args.junit, exports.write_junit), (args.html, _html))
    for path, write in outputs:
        if path is not None:
            path.write_text(write(report), encoding="utf-8")
    return report.exit_code


def _html(report: render.Report) -> str:
    from webclient.check.html import write_html  # Jinja only when an HTML report is asked for

    return write_html(report)


async def check(
    plan: Plan, sandbox: Sandbox, protocol: str, progress: Progress, rules: tuple[Rule, ...] = RULES
) -> render.Report:
    """Run every form in the versions `protocol` names and judge `rules` by them."""
    numbering = Numbering()
    runner = Runner(plan, sandbox, numbering, progress.step)
    versions = [1, 2] if protocol == "both" else [2, 1] if protocol == "auto" else [int(protocol)]
    progress.total = len(runner.forms()) * (1 if protocol == "auto" else len(versions))
    results = []
    for version in versions:
        runs = await runner.run_all(version, progress.done)
        if protocol == "auto" and version == 2 and runs[0].info is None:
            progress.finished = 0  # auto: v2 first, and v1 for an agent that does not get through v2
            continue
        unsupported = next((r for r in runs if r.unsupported or (r.info is None and r.error)), None)
        if unsupported is not None and all(r.info is None for r in runs):
            results.append(_unavailable(version, runs, unsupported, rules))
        else:
            results.append(render.VersionResult(version, evaluate(runs, rules), runs))
        if protocol == "auto":
            break
    progress.finish()
    notes = [f"prompts: {' / '.join(plan.prompts)}"]
    report = render.Report("", results, numbering.lines, notes, rules=rules)
    return report


def _unavailable(version: int, runs: list[Run], failed: Run, rules: tuple[Rule, ...]) -> render.VersionResult:
    why = failed.error or "the agent did not answer"
    verdicts = [Verdict(rule, Status.NOT_OBSERVED, f"not checked: {why}") for rule in rules]
    return render.VersionResult(
        version, verdicts, runs, unavailable=why, unsupported=failed.unsupported,
        agent_exit_code=failed.exit_code, stderr=failed.stderr,
    )  # fmt: skip


class Progress:
    """One line on stderr while the check runs, rewritten in place on a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.total = 0
        self.finished = 0
        self.tty = stream.isatty()

    def step(self, text: str) -> None:
        line = f"[{self.finished + 1}/{self.total or '?'}] {text}"
        if self.tty:
            self.stream.write("\r\033[K" + line[:120])
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def done(self, run: Run) -> None:
        self.finished += 1

    def finish(self) -> None:
        if self.tty:
            self.stream.write("\r\033[K")
            self.stream.flush()


def list_rules() -> str:
    """Every rule: its id, its title and the RFD's sentence it checks."""
    out = []
    for rule in RULES:
        out += [f"{rule.id:<22} {rule.title}", *textwrap.wrap(rule.sentence, 96, initial_indent=" " * 23,
                                                               subsequent_indent=" " * 23)]  # fmt: skip
    return "\n".join(out)


def _agent(agent: str, config: str | None) -> AgentSpec:
    path = Path(config).expanduser() if config else default_config_path()
    return build_catalog(agent, load_config(path, explicit=config is not None)).default


def _pair(text: str) -> tuple[str, str]:
    name, equals, value = text.partition("=")
    if not equals or not name.strip():
        raise SettingsError(f"--agent-env takes KEY=VALUE, not {text!r}")
    return name, value
