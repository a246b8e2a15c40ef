"""The Agent rules of the RFD that a client can observe, each judged from the runs of one version.

Each rule reads the events the recorder kept (our models, from the protocol layer) and answers PASS,
FAIL or NOT OBSERVED, with the wire lines that prove it. An agent is never required to predict, so a rule
that only an agent's suggestions could show is NOT OBSERVED when none came, saying what would have.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum

from webclient.acp.capabilities import OFFERS, UNADVERTISED_FORMS
from webclient.check.recorder import Event
from webclient.check.runner import AIR_OFFER, BASELINE, REPLAY, Run
from webclient.check.turns import Turn, content, turns


class Status(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    NOT_OBSERVED = "NOT OBSERVED"
    INFO = "INFO"


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    sentence: str  # the RFD's own words that the rule checks


@dataclass(frozen=True)
class Verdict:
    rule: Rule
    status: Status
    summary: str
    lines: tuple[int, ...] = ()
    culprit: int | None = None  # of a FAIL: the line of the first message that broke the rule


def _verdict(
    rule: Rule, status: Status, summary: str, lines: Iterable[int | None] = (), culprit: int | None = None
) -> Verdict:
    return Verdict(rule, status, summary, tuple(sorted({n for n in lines if n is not None})), culprit)


GATING = Rule(
    "gating.unadvertised",
    "No suggestions without the capability",
    "Agents MUST NOT send prompt_suggestions_update unless the Client advertises this capability.",
)
TYPES = Rule(
    "gating.types",
    "Only block types both sides support",
    "Agents MUST only use content types that both sides support: text and resource_link are always "
    "allowed. image, audio, and resource blocks are allowed only when both sides advertise the type.",
)
SHAPE = Rule(
    "shape.update",
    "The update's shape",
    "suggestions is a required, non-null list of suggestion objects. _meta is optional and nullable on "
    "the update and on each suggestion.",
)
PROMPT = Rule(
    "shape.prompt",
    "Each prompt is a valid session/prompt prompt",
    "Each suggestion has a required, non-null prompt. It is a list of at least one ContentBlock. Each "
    "suggestion's prompt MUST be valid as the prompt of a session/prompt request for the session.",
)
BLANK = Rule(
    "shape.blank",
    "No empty or whitespace-only suggestion",
    "Agents MUST NOT send a suggestion whose only content is empty or whitespace-only text.",
)
REPLACE = Rule(
    "lifetime.replace",
    "A new prompt replaces or withdraws the list",
    "When the Agent accepts a session/prompt for the session, a list it sent earlier is out of date. If "
    "the current list is not empty, the Agent MUST replace it or withdraw it with suggestions: []. In v2, "
    "the Agent accepts a prompt when it inserts the user message.",
)
STALE = Rule(
    "lifetime.stale",
    "No prediction for an earlier point",
    "If the conversation changes before the Agent has sent a prediction, for example because a "
    "session/prompt arrived, the Agent MUST discard that prediction.",
)
REPLAY_RULE = Rule(
    "replay.empty",
    "No suggestions in a replay",
    "Agents SHOULD NOT include suggestions in session replay. That covers session/load history in v1 and "
    "session/resume replay in v2. A loaded or resumed session starts with an empty list.",
)
SESSION = Rule(
    "session.id",
    "Updates name the right session",
    "Each update replaces the session's current list of suggestions.",
)
LEGACY = Rule(
    "legacy.meta",
    "Legacy _meta.promptSuggestions (information)",
    "Migrate the Claude Agent adapter and the AIR Client from _meta.promptSuggestions to the update. "
    "Keep the _meta key for one release for older peers.",
)
RULES = (GATING, TYPES, SHAPE, PROMPT, BLANK, REPLACE, STALE, REPLAY_RULE, SESSION, LEGACY)


def evaluate(runs: list[Run], rules: tuple[Rule, ...] = RULES) -> list[Verdict]:
    """The verdict of each of `rules` (default: every rule) for the runs of one protocol version."""
    return [judge(runs) for rule, judge in zip(RULES, JUDGES, strict=True) if rule in rules]


def _lists(runs: Iterable[Run]) -> list[tuple[Run, Event]]:
    return [(run, e) for run in runs for e in run.recorder.of("suggestions")]


def _sample(found: list[tuple[Run, Event]], count: int = 3) -> list[int | None]:
    """A few lines to show for a PASS: the first lists that prove it."""
    return [e.line for _, e in found[:count]]


def _advertised(runs: list[Run]) -> list[Run]:
    return [r for r in runs if r.advertised]


def _none_sent(rule: Rule, runs: list[Run]) -> Verdict:
    done = sum(r.turns for r in _advertised(runs))
    if not done:
        return _verdict(rule, Status.NOT_OBSERVED, "no advertised prompt got through (see the warnings)")
    return _verdict(
        rule,
        Status.NOT_OBSERVED,
        f"the agent sent no prompt_suggestions_update in {done} advertised turns; a list it sends would "
        "show this rule",
    )


def gating(runs: list[Run]) -> Verdict:
    silent = [r for r in runs if r.form in UNADVERTISED_FORMS]
    wrong = _lists(silent)
    if wrong:
        forms = sorted({UNADVERTISED_FORMS[r.form] for r, _ in wrong})
        return _verdict(
            GATING, Status.FAIL, f"suggestions arrived although not advertised ({'; '.join(forms)})",
            [r.recorder.first_out for r, _ in wrong] + [e.line for _, e in wrong], wrong[0][1].line,
        )  # fmt: skip
    turns = sum(r.turns for r in silent)
    if not turns:
        return _verdict(GATING, Status.NOT_OBSERVED, "no prompt got through without the capability")
    if not _lists(_advertised(runs)):
        return _verdict(
            GATING, Status.NOT_OBSERVED,
            f"none in {turns} unadvertised turns, but none when advertised either: an agent that predicts "
            "would show whether it gates",
        )  # fmt: skip
    return _verdict(
        GATING, Status.PASS,
        f"none in {turns} turns over {len(silent)} unadvertised forms (their initialize)",
        [r.recorder.first_out for r in silent],
    )  # fmt: skip


def _skips(rule_name: str, rule: Rule, runs: list[Run], what: str) -> Verdict:
    seen = _lists(_advertised(runs))
    if not seen:
        return _none_sent(rule, runs)
    bad = [
        (r, e, s.reason)
        for r, e in seen
        if e.suggestions is not None
        for s in e.suggestions.skipped
        if s.rule == rule_name
    ]
    if bad:
        reasons = sorted({f"{r.form}: {reason}" for r, _, reason in bad})
        return _verdict(
            rule, Status.FAIL, "; ".join(reasons[:4]), [e.line for _, e, _ in bad], bad[0][1].line
        )
    return _verdict(rule, Status.PASS, f"{what} in {len(seen)} updates", _sample(seen))


def types(runs: list[Run]) -> Verdict:
    verdict = _skips("type", TYPES, runs, "only allowed block types")
    if verdict.status is not Status.PASS:
        return verdict
    used = []
    for form in OFFERS:
        kinds = sorted(
            {p.kind for r, e in _lists(r for r in runs if r.form == form) if e.suggestions
             for s in e.suggestions.suggestions for p in s.parts}
        )  # fmt: skip
        used.append(f"{OFFERS[form]}: {', '.join(kinds) or 'no suggestions'}")
    optional = [
        (r, e) for r, e in _lists(runs) if e.suggestions
        and any(p.kind not in ("text", "resource_link") for s in e.suggestions.suggestions for p in s.parts)
    ]  # fmt: skip
    evidence = _sample(optional or _lists(_advertised(runs)))
    return _verdict(TYPES, Status.PASS, f"{verdict.summary} ({'; '.join(used)})", evidence)


def shape(runs: list[Run]) -> Verdict:
    seen = _lists(_advertised(runs))
    if not seen:
        return _none_sent(SHAPE, runs)
    bad = [(r, e) for r, e in seen if e.suggestions is not None and e.suggestions.malformed]
    if bad:
        reasons = sorted({str(e.suggestions.malformed) for _, e in bad if e.suggestions})
        return _verdict(SHAPE, Status.FAIL, "; ".join(reasons[:4]), [e.line for _, e in bad], bad[0][1].line)
    return _verdict(SHAPE, Status.PASS, f"{len(seen)} well-formed updates", _sample(seen))


def prompt(runs: list[Run]) -> Verdict:
    return _skips("shape", PROMPT, runs, "only valid prompts")


def blank(runs: list[Run]) -> Verdict:
    return _skips("blank", BLANK, runs, "no blank suggestion")


def replace(runs: list[Run]) -> Verdict:
    due = [
        (r, t) for r in _advertised(runs) for t in turns(r) if t.standing is not None and t.end is not None
    ]
    if not due:
        return _verdict(
            REPLACE, Status.NOT_OBSERVED,
            "no prompt was accepted while a non-empty list stood; an agent that predicts after a turn "
            "shows it",
        )  # fmt: skip
    kept = [(r, t) for r, t in due if not t.lists]
    if kept:
        lines = [
            n for _, t in kept for n in (t.standing.line if t.standing else None, t.prompt.line,
                                         t.end.line if t.end else None)
        ]  # fmt: skip
        return _verdict(
            REPLACE, Status.FAIL,
            f"{len(kept)} of {len(due)} turns ended with the list from before the prompt still standing",
            lines, kept[0][1].standing.line if kept[0][1].standing else None,
        )  # fmt: skip
    lines = [n for _, t in due[:2] for n in (t.standing.line if t.standing else None, t.prompt.line,
                                              t.lists[0].line if t.lists else None)]  # fmt: skip
    return _verdict(
        REPLACE, Status.PASS, f"replaced or withdrawn in all {len(due)} turns where a list stood", lines
    )


def stale(runs: list[Run]) -> Verdict:
    chances = [(r, t) for r in _advertised(runs) for t in turns(r) if t.earlier and t.accepted is not None]
    how = (
        "v2: acceptance is visible (the user message inserted)"
        if runs and runs[0].version == 2
        else "v1 heuristic: acceptance taken as the agent's first update of the turn"
    )
    if not chances:
        return _verdict(STALE, Status.NOT_OBSERVED, f"no turn followed a prediction ({how})")
    late = [
        (t, e) for _, t in chances for e in (t.before_reply or []) if e.suggestions and e.suggestions.sent
        and content(e) in t.earlier
    ]  # fmt: skip
    if late:
        lines = [n for t, e in late for n in (t.prompt.line, t.accepted.line if t.accepted else None, e.line)]
        return _verdict(
            STALE, Status.FAIL,
            f"a list predicted before the prompt arrived after the prompt was accepted ({how})", lines,
            late[0][1].line,
        )  # fmt: skip
    lines = [n for _, t in chances[-2:] for n in (t.prompt.line, t.accepted.line if t.accepted else None)]
    return _verdict(
        STALE, Status.PASS, f"no earlier prediction after {len(chances)} accepted prompts ({how})", lines
    )


def replay(runs: list[Run]) -> Verdict:
    run = next((r for r in runs if r.form == REPLAY), None)
    if run is None or run.replayed is None:
        why = run.error if run is not None and run.error else "the agent offers no session/load or resume"
        return _verdict(REPLAY_RULE, Status.NOT_OBSERVED, why)
    events = run.recorder.events
    marks = [i for i, e in enumerate(events) if e.kind in ("load", "load_end")]
    inside = [e for e in events[marks[0] : marks[-1]] if e.kind == "suggestions"] if len(marks) == 2 else []
    if inside:
        return _verdict(
            REPLAY_RULE, Status.FAIL, f"{len(inside)} suggestion updates inside the replay of {run.replayed}",
            [e.line for e in inside], inside[0].line,
        )  # fmt: skip
    base = next((r for r in runs if r.form == BASELINE), None)
    had = base is not None and any(e.session_id == run.replayed for e in base.recorder.of("suggestions"))
    if not had:
        return _verdict(
            REPLAY_RULE, Status.NOT_OBSERVED, "the replayed session never had suggestions to replay"
        )
    replayed = [e.line for e in events[marks[0] : marks[-1]] if e.kind == "update"] if len(marks) == 2 else []
    return _verdict(
        REPLAY_RULE, Status.PASS,
        f"the replay of {run.replayed} carried no suggestions ({len(replayed)} updates)",
        replayed[:3] + replayed[-2:],
    )  # fmt: skip


def session(runs: list[Run]) -> Verdict:
    base = next((r for r in runs if r.form == BASELINE and len(r.sessions) == 2), None)
    everywhere = [(r, e) for r, e in _lists(runs) if e.session_id not in r.sessions and r.form != REPLAY]
    if everywhere:
        ids = sorted({str(e.session_id) for _, e in everywhere})
        return _verdict(SESSION, Status.FAIL, f"updates for sessions never opened: {', '.join(ids)}",
                        [e.line for _, e in everywhere], everywhere[0][1].line)  # fmt: skip
    if base is None:
        return _verdict(SESSION, Status.NOT_OBSERVED, "two sessions could not be opened at once")
    first, second = base.sessions
    wrong: list[Event] = []
    right = 0
    for turn in turns(base):
        if turn.prompt.session_id != first:
            continue
        window = _window(base, turn)
        mine = [e for e in window if e.session_id == first]
        other = [e for e in window if e.session_id == second]
        right += bool(mine)
        if other and not mine:
            wrong += other
    if wrong:
        return _verdict(
            SESSION, Status.FAIL, "a list for the idle second session while the first one was prompted",
            [e.line for e in wrong], wrong[0].line,
        )  # fmt: skip
    if not right:
        return _verdict(SESSION, Status.NOT_OBSERVED, "no list arrived while two sessions were open")
    named = [e.line for t in turns(base) if t.prompt.session_id == first for e in _window(base, t)][:3]
    return _verdict(
        SESSION, Status.PASS, f"{right} turns of the first of two sessions: every list named it", named
    )


def _window(run: Run, turn: Turn) -> list[Event]:
    """The lists from a turn's prompt to the next prompt of the run (its settle time included)."""
    events = run.recorder.events
    start = events.index(turn.prompt)
    after = [i for i, e in enumerate(events) if i > start and e.kind == "prompt"]
    return [e for e in events[start : after[0] if after else None] if e.kind == "suggestions"]


# The two declarations a legacy agent keys on, as the report names them.
AIR_DECLARATIONS = {
    "air-meta": "_meta.jetbrains.air without promptSuggestions",
    AIR_OFFER: "_meta.jetbrains.air with promptSuggestions (webclient --jetbrains-air-meta)",
}


def legacy(runs: list[Run]) -> Verdict:
    parts: list[str] = []
    lines: list[int | None] = []
    for form, label in AIR_DECLARATIONS.items():
        run = next((r for r in runs if r.form == form), None)
        if run is None:
            continue
        rfd, old = run.recorder.of("suggestions"), run.recorder.of("legacy")
        parts.append(f"{label}: {_what_came(len(rfd), len(old), run)}")
        lines += [e.line for e in old[:2] + rfd[:2]]
    elsewhere = [(r, e) for r in runs if r.form not in AIR_DECLARATIONS for e in r.recorder.of("legacy")]
    if elsewhere:
        forms = sorted({(OFFERS | UNADVERTISED_FORMS).get(r.form, r.form) for r, _ in elsewhere})
        parts.append(f"legacy _meta also sent to: {'; '.join(forms)}")
        lines += [e.line for _, e in elsewhere[:2]]
    return _verdict(LEGACY, Status.INFO, "; ".join(parts) or "not sent to any client declaration", lines)


def _what_came(rfd: int, old: int, run: Run) -> str:
    sent = [f"{n} {what}" for n, what in ((rfd, "RFD updates"), (old, "legacy _meta lists")) if n]
    turns = f"{run.turns} turn{'s' if run.turns != 1 else ''}"
    if run.error and not run.turns:
        return f"not seen ({run.error})"
    return f"{' and '.join(sent)} in {turns}" if sent else f"no suggestions in {turns}"


JUDGES: tuple[Callable[[list[Run]], Verdict], ...] = (
    gating, types, shape, prompt, blank, replace, stale, replay, session, legacy,
)  # fmt: skip
